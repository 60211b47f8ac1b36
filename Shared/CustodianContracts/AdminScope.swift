import CustodianRPC

/// What an admin identity may do (docs/admin.md, "Scopes"). Each scope includes the ones before it: an owner may do
/// what an operator may, an operator what a researcher may.
public enum AdminScope: String, Codable, Sendable, CaseIterable, Comparable {
    /// Reads lists and exports: pseudonyms and measurements.
    case researcher
    /// Creates and changes accounts, devices, consumers, links, configuration and statistics; prints labels.
    case `operator`
    /// Everything: admin tokens, key recovery, the audit log (and, later, erasure).
    case owner

    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }

    public static func < (lhs: AdminScope, rhs: AdminScope) -> Bool { lhs.rank < rhs.rank }

    /// Whether an identity of this scope may call a route that needs `needed`.
    public func allows(_ needed: AdminScope) -> Bool { self >= needed }

    /// The scope an admin principal carries (in `scopes`), nil for any other principal.
    public init?(of principal: Principal?) {
        guard let principal, principal.kind == .admin,
            let scope = principal.scopes.lazy.compactMap(AdminScope.init(rawValue:)).max()
        else { return nil }
        self = scope
    }

    /// The names, for messages: `researcher, operator or owner`.
    public static var names: String {
        let names = allCases.map(\.rawValue)
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }
}
