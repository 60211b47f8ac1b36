/// Who may call a method, declared where it is registered: the kinds of principal the dispatcher lets through, and
/// how it refuses the others where the API has words of its own for that.
public struct PrincipalRequirement: Sendable, Equatable, ExpressibleByArrayLiteral {
    public var kinds: Set<PrincipalKind>
    /// The answer to a principal of another kind; nil: a 403 in the dispatcher's words.
    public var refusal: RPCError?
    /// The answer to a call without a principal; nil: a 401 in the dispatcher's words.
    public var anonymous: RPCError?

    public init(arrayLiteral kinds: PrincipalKind...) {
        self.init(kinds: Set(kinds), refusal: nil, anonymous: nil)
    }

    private init(kinds: Set<PrincipalKind>, refusal: RPCError?, anonymous: RPCError?) {
        self.kinds = kinds
        self.refusal = refusal
        self.anonymous = anonymous
    }

    /// `kinds`, refusing the others with `refusal`, and calls without a principal with `anonymous` (or `refusal`).
    public static func only(_ kinds: PrincipalKind..., refusing refusal: RPCError, anonymous: RPCError? = nil) -> PrincipalRequirement {
        PrincipalRequirement(kinds: Set(kinds), refusal: refusal, anonymous: anonymous ?? refusal)
    }

    /// Lets `context`'s principal through, or refuses it.
    func admit(_ context: CallContext) throws {
        guard let principal = context.principal else { throw anonymous ?? RPCError.unauthenticated("Authentication required") }
        if kinds.contains(principal.kind) { return }
        if let refusal { throw refusal }
        if kinds == [.admin] { throw RPCError.forbidden("Admin credentials required") }
        throw RPCError.forbidden("This method is for \(kinds.map(\.rawValue).sorted().joined(separator: ", ")) credentials only")
    }
}
