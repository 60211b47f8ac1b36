import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianRuntime
import CustodianSodium
import Foundation
import Logging
import PostgresNIO

/// `POST /oauth/token` of the data vault (docs/vault.md, "`POST /oauth/token`: logging in"): the password grant for users and the
/// client-credentials grant for modules, both answered with a bearer access token valid for 7200 s.
/// Failed logins for one email are slowed down and then refused for a while (``PasswordThrottle``).
struct OAuthTokens: Sendable {
    let database: Database
    let services: RPCClient
    let users: VaultUsers
    let issuer: TokenIssuer
    let throttle: PasswordThrottle

    static let lifetime = 7200

    struct TokenResponse: Codable, Sendable {
        var access_token: String
        var token_type = "bearer"
        var expires_in = OAuthTokens.lifetime
        var created_at: Int64
        var username: String?
    }

    func token(_ input: HTTPInput, context: CallContext) async throws -> TokenResponse {
        let fields = Self.fields(input.body)
        guard let grant = fields["grant_type"], !grant.isEmpty else {
            throw Self.error(.badRequest, "invalid_request", "grant_type is required")
        }
        switch grant {
        case "password": return try await passwordGrant(fields, context: context)
        case "client_credentials": return try await clientCredentialsGrant(fields, authorization: input.headers["authorization"], context: context)
        default: throw Self.error(.badRequest, "unsupported_grant_type", "grant_type must be password or client_credentials")
        }
    }

    private func passwordGrant(_ fields: [String: String], context: CallContext) async throws -> TokenResponse {
        guard let email = fields["email"] ?? fields["username"], !email.isEmpty, let password = fields["password"], !password.isEmpty else {
            throw Self.error(.badRequest, "invalid_request", "email and password are required")
        }
        let key = VaultUsers.normalised(email)
        let admission = try await throttle.admit(key, logger: context.logger)
        let user = try await users.find(email: key, logger: context.logger)
        // An unknown email costs as much as a wrong password, so that timing tells nothing.
        let stored = user?.passwordHash ?? Self.dummyHash
        let valid = try await BlockingWork.run { Sodium.verifyPassword(password, hash: stored) }
        guard let user, valid else {
            try await throttle.recordFailure(key, admission: admission, logger: context.logger)
            throw Self.error(.unauthenticated, "invalid_grant", "Invalid email or password")
        }
        try await throttle.clear(key, logger: context.logger)
        let (token, claims) = try await issuer.issue(
            subject: String(user.id), kind: "user", session: nil, scopes: ["vault"], lifetime: TimeInterval(Self.lifetime), logger: context.logger)
        return TokenResponse(access_token: token, created_at: Int64(claims.iat.value.timeIntervalSince1970), username: user.name)
    }

    private func clientCredentialsGrant(_ fields: [String: String], authorization: String?, context: CallContext) async throws -> TokenResponse {
        var clientID = fields["client_id"]
        var clientSecret = fields["client_secret"]
        if let authorization, authorization.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: String(authorization.dropFirst(6)).trimmingCharacters(in: .whitespaces)).flatMap({
                String(data: $0, encoding: .utf8)
            }),
            let colon = decoded.firstIndex(of: ":")
        {
            clientID = String(decoded[..<colon]).removingPercentEncoding
            clientSecret = String(decoded[decoded.index(after: colon)...]).removingPercentEncoding
        }
        guard let clientID, !clientID.isEmpty, let clientSecret, !clientSecret.isEmpty else {
            throw Self.error(.badRequest, "invalid_request", "client_id and client_secret are required")
        }
        let module: ModuleCredentials
        do {
            module = try await services.call(
                VaultMethods.modulesCredentials, input: ModuleCredentialsInput(uid: clientID, secret: clientSecret),
                context: context)
        } catch let error as RPCError where error.code == .unauthenticated {
            throw Self.error(.unauthenticated, "invalid_client", "Invalid client credentials")
        }
        let (token, claims) = try await issuer.issue(
            subject: String(module.moduleID), kind: "module", session: nil, scopes: ["user:\(module.userID)"],
            lifetime: TimeInterval(Self.lifetime), logger: context.logger)
        // The app logs in with a module's key from a login QR code and shows the owner's name like after a password login.
        let owner = try await users.name(id: module.userID, logger: context.logger)
        return TokenResponse(access_token: token, created_at: Int64(claims.iat.value.timeIntervalSince1970), username: owner)
    }

    /// Form fields and JSON members alike, as text.
    static func fields(_ body: JSONValue) -> [String: String] {
        guard case .object(let members) = body else { return [:] }
        return members.compactMapValues { value in
            switch value {
            case .string(let text): text
            case .int(let number): String(number)
            default: nil
            }
        }
    }

    static func error(_ code: RPCError.Code, _ reason: String, _ message: String) -> RPCError {
        RPCError(code, reason: reason, message: message)
    }

    /// Verified against for unknown emails: a hash of nothing anyone knows.
    static let dummyHash: String = (try? Sodium.passwordHash(UUID().uuidString)) ?? ""
}
