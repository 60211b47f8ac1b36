import CustodianJWT
import CustodianRPC
import Foundation
import JWTKit
import Logging

/// Signs access tokens with the current key; the gateway checks them against the published key set.
struct TokenIssuer: Sendable {
    let signingKeys: SigningKeys
    let issuer: String
    let audience: String

    /// The longest life of any token issued here: a key that stopped signing this long ago signed no token still valid,
    /// and may be retired (``SigningKeySchedule``). A longer lifetime is refused.
    static let longestLifetime: TimeInterval = max(TimeInterval(OAuthTokens.lifetime), LemonSessions.lifetime)

    func issue(
        subject: String, kind: String, session: String?, scopes: [String], lifetime: TimeInterval,
        issuedAt: Date = Date(), logger: Logger
    ) async throws -> (token: String, claims: AccessClaims) {
        guard lifetime <= Self.longestLifetime else {
            throw RPCError.internal("a token of \(lifetime) s would outlive the longest lifetime that key retirement allows for")
        }
        let key = try await signingKeys.signingKey(logger: logger)
        // Whole seconds, so that `created_at` + `expires_in` is exactly the token's expiry.
        let now = Date(timeIntervalSince1970: issuedAt.timeIntervalSince1970.rounded(.down))
        let claims = AccessClaims(
            subject: subject, kind: kind, session: session, scopes: scopes, issuer: issuer,
            audience: audience, issuedAt: now, lifetime: lifetime)
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key.privateKey, kid: JWKIdentifier(string: key.kid))
        return (try await keys.sign(claims, kid: JWKIdentifier(string: key.kid)), claims)
    }
}
