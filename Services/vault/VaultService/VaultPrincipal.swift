import CustodianRPC

/// Who calls the vault: a user (OAuth password grant) or a module acting for its user (client credentials),
/// as the gateway established from the access token. The methods are registered for these two kinds only, so the
/// dispatcher has refused any other caller; what is left here is reading the ids.
struct VaultPrincipal {
    enum Kind { case user, module }

    var kind: Kind
    var userID: Int64
    var moduleID: Int64?

    static let invalidToken = RPCError.unauthenticated("The access token is invalid", reason: "invalid_token")
    /// What the vault's methods are registered with.
    static let required = PrincipalRequirement.only(
        .user, .module, refusing: .forbidden("This token cannot be used for the data vault", reason: "wrong_principal"), anonymous: invalidToken)

    init(_ context: CallContext) throws {
        guard let principal = context.principal else { throw Self.invalidToken }
        switch principal.kind {
        case .user:
            guard let id = Int64(principal.id) else { throw Self.invalidToken }
            self.init(kind: .user, userID: id, moduleID: nil)
        case .module:
            // Module tokens name the module; the user is in their scopes as `user:<id>`.
            guard let moduleID = Int64(principal.id),
                let userID = principal.scopes.first(where: { $0.hasPrefix("user:") }).flatMap({ Int64($0.dropFirst(5)) })
            else { throw Self.invalidToken }
            self.init(kind: .module, userID: userID, moduleID: moduleID)
        default:
            throw Self.required.refusal ?? Self.invalidToken
        }
    }

    init(kind: Kind, userID: Int64, moduleID: Int64?) {
        self.kind = kind
        self.userID = userID
        self.moduleID = moduleID
    }
}
