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

    /// `POST /oauth/token`: the grant's credentials checked, an access token issued.
    func token(_ input: OAuthTokenRequest, context: CallContext) async throws -> OAuthToken {
        switch input.grant {
        case .password(let email, let password): try await passwordGrant(email: email, password: password, context: context)
        case .clientCredentials(let id, let secret): try await clientCredentialsGrant(id: id, secret: secret, context: context)
        }
    }

    private func passwordGrant(email: String, password: String, context: CallContext) async throws -> OAuthToken {
        let key = VaultUserCreate.normalised(email)
        let admission = try await throttle.admit(key, logger: context.logger)
        let user = try await users.find(email: key, logger: context.logger)
        // An unknown email costs as much as a wrong password, so that timing tells nothing.
        let stored = user?.passwordHash ?? Self.dummyHash
        let valid = try await BlockingWork.run { Sodium.verifyPassword(password, hash: stored) }
        guard let user, valid else {
            try await throttle.recordFailure(key, admission: admission, logger: context.logger)
            throw OAuthTokenRequest.refusal(.unauthenticated, "invalid_grant", "Invalid email or password")
        }
        try await throttle.clear(key, logger: context.logger)
        let (token, claims) = try await issuer.issue(
            subject: String(user.id), kind: "user", session: nil, scopes: ["vault"], lifetime: TimeInterval(Self.lifetime), logger: context.logger)
        return OAuthToken(
            access_token: token, expires_in: Self.lifetime, created_at: Int64(claims.iat.value.timeIntervalSince1970), username: user.name)
    }

    private func clientCredentialsGrant(id clientID: String, secret clientSecret: String, context: CallContext) async throws -> OAuthToken {
        let module: ModuleCredentials
        do {
            module = try await services.call(
                VaultMethods.modulesCredentials, input: ModuleCredentialsInput(uid: clientID, secret: clientSecret),
                context: context)
        } catch let error as RPCError where error.code == .unauthenticated {
            throw OAuthTokenRequest.refusal(.unauthenticated, "invalid_client", "Invalid client credentials")
        }
        let (token, claims) = try await issuer.issue(
            subject: String(module.moduleID), kind: "module", session: nil, scopes: ["user:\(module.userID)"],
            lifetime: TimeInterval(Self.lifetime), logger: context.logger)
        // The app logs in with a module's key from a login QR code and shows the owner's name like after a password login.
        let owner = try await users.name(id: module.userID, logger: context.logger)
        return OAuthToken(access_token: token, expires_in: Self.lifetime, created_at: Int64(claims.iat.value.timeIntervalSince1970), username: owner)
    }

    /// Verified against for unknown emails: a hash of nothing anyone knows.
    static let dummyHash: String = (try? Sodium.passwordHash(UUID().uuidString)) ?? ""
}
