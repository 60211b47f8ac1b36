import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation

/// Admin identities and their tokens (docs/admin.md, "Identities and scopes"): owners list, create and revoke them.
extension AuthMethods {
    public static let tokensList = RoutedMethod<NoInput, AdminIdentityList>("auth.tokens.list", retry: .safe)
    public static let tokensCreate = RoutedMethod<CreateAdminToken, CreatedAdminToken>("auth.tokens.create")
    public static let tokensRevoke = RoutedMethod<AdminIdentityByID, AdminIdentity>("auth.tokens.revoke", retry: .safe)
}

/// A named admin identity, as owners see it: never its token, which only its holder has.
public struct AdminIdentity: RoutedJSON, Equatable {
    public var id: String
    public var label: String
    public var scope: AdminScope
    /// Who made it: the creating identity's label, or `custodian admin …` for the command line.
    @ExplicitNull public var created_by: String?
    public var created_at: String
    @ExplicitNull public var expires_at: String?
    @ExplicitNull public var last_used_at: String?
    @ExplicitNull public var revoked_at: String?

    public init(
        id: String, label: String, scope: AdminScope, created_by: String?, created_at: String, expires_at: String?,
        last_used_at: String?, revoked_at: String?
    ) {
        self.id = id
        self.label = label
        self.scope = scope
        self.created_by = created_by
        self.created_at = created_at
        self.expires_at = expires_at
        self.last_used_at = last_used_at
        self.revoked_at = revoked_at
    }
}

public struct AdminIdentityList: RoutedJSON, Equatable {
    public var identities: [AdminIdentity]

    public init(identities: [AdminIdentity]) {
        self.identities = identities
    }
}

/// A new identity and its token, shown this once (only its hash is stored).
public struct CreatedAdminToken: RoutedJSON, Equatable {
    public var identity: AdminIdentity
    public var token: String

    public init(identity: AdminIdentity, token: String) {
        self.identity = identity
        self.token = token
    }
}

/// `POST /admin/v1/tokens`: `{"label": "…", "scope": "researcher", "expires_in": <seconds>}`; without `expires_in` the
/// token works until it is revoked.
public struct CreateAdminToken: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }
    /// Ten years: a longer life is no life limit at all, and is said by leaving `expires_in` out.
    public static let longestLife = 315_360_000

    public var label: String
    public var scope: AdminScope
    public var expiresIn: Int?

    public init(label: String, scope: AdminScope, expiresIn: Int? = nil) {
        self.label = label
        self.scope = scope
        self.expiresIn = expiresIn
    }

    enum CodingKeys: String, CodingKey { case label, scope, expires_in }

    public init(from decoder: any Decoder) throws {
        let body = try RequestReader(decoder).body(keyedBy: CodingKeys.self)
        let label = try body.decode(String.self, forKey: .label)
        let scope = try body.decode(String.self, forKey: .scope)
        let expiresIn = try body.decodeIfPresent(Int.self, forKey: .expires_in)
        guard let valid = Self.validLabel(label) else {
            throw RPCError.validation(location: ["body", "label"], message: "a label has 1 to 100 characters and no control characters")
        }
        guard let known = AdminScope(rawValue: scope) else {
            throw RPCError.validation(location: ["body", "scope"], message: "scope must be \(AdminScope.names)")
        }
        if let expiresIn, !(1...Self.longestLife).contains(expiresIn) {
            throw RPCError.validation(location: ["body", "expires_in"], message: "expires_in is seconds from 1 to \(Self.longestLife)")
        }
        self.init(label: valid, scope: known, expiresIn: expiresIn)
    }

    public func encode(to encoder: any Encoder) throws {
        var body: [String: JSONValue] = ["label": .string(label), "scope": .string(scope.rawValue)]
        if let expiresIn { body["expires_in"] = .int(Int64(expiresIn)) }
        try HTTPInput(body: .object(body)).encode(to: encoder)
    }

    /// The label trimmed, when it is one (the command line checks with the same rule).
    public static func validLabel(_ label: String) -> String? {
        let trimmed = label.trimmingCharacters(in: .whitespaces)
        guard (1...100).contains(trimmed.count), !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return nil
        }
        return trimmed
    }
}

/// `DELETE /admin/v1/tokens/{token_id}`: the identity by its id; an id that is no UUID names no identity (404).
public struct AdminIdentityByID: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var id: UUID

    public init(id: UUID) {
        self.id = id
    }

    public init(from decoder: any Decoder) throws {
        let text = try RequestReader(decoder).path("token_id")
        guard let id = UUID(uuidString: text) else { throw RPCError.notFound("No admin identity has the id \(text)", reason: "unknown_identity") }
        self.id = id
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(path: ["token_id": id.uuidString.lowercased()]).encode(to: encoder)
    }
}
