import CustodianContracts
import Foundation
import JWTKit

/// The claims of every access token `auth` issues and the gateway checks.
public struct AccessClaims: JWTPayload, Equatable {
    public var sub: SubjectClaim
    public var iss: IssuerClaim
    public var aud: AudienceClaim
    public var exp: ExpirationClaim
    public var nbf: NotBeforeClaim
    public var iat: IssuedAtClaim
    /// The kind of principal: `app`, `user`, `module`, …
    public var kind: String
    /// The session the token belongs to, so that revoking the session revokes the token.
    public var sid: String?
    public var scope: [String]?

    public init(
        subject: String, kind: String, session: String?, scopes: [String], issuer: String, audience: String,
        issuedAt: Date = Date(), lifetime: TimeInterval
    ) {
        self.sub = SubjectClaim(value: subject)
        self.iss = IssuerClaim(value: issuer)
        self.aud = AudienceClaim(value: [audience])
        self.iat = IssuedAtClaim(value: issuedAt)
        self.nbf = NotBeforeClaim(value: issuedAt.addingTimeInterval(-5))
        self.exp = ExpirationClaim(value: issuedAt.addingTimeInterval(lifetime))
        self.kind = kind
        self.sid = session
        self.scope = scopes
    }

    public func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
        try nbf.verifyNotBefore()
    }
}

/// The one algorithm Custodian signs with; the gateway refuses tokens that name any other.
public enum AccessTokenAlgorithm {
    public static let name = "ES256"
}

/// An ES256 signing key and its public half as a JSON Web Key.
public struct SigningKey: Sendable {
    public let kid: String
    public let privateKey: ES256PrivateKey

    public init(kid: String, pem: String) throws {
        self.kid = kid
        self.privateKey = try ES256PrivateKey(pem: pem)
    }

    public init(kid: String, privateKey: ES256PrivateKey) {
        self.kid = kid
        self.privateKey = privateKey
    }

    public static func generate() -> SigningKey {
        SigningKey(kid: UUID().uuidString.lowercased(), privateKey: ES256PrivateKey())
    }

    public var pem: String { privateKey.pemRepresentation }

    /// The public key, as it appears in the key set.
    public var publicJWK: PublicJWK? {
        guard let parameters = privateKey.publicKey.parameters else { return nil }
        return PublicJWK(kty: "EC", crv: "P-256", x: parameters.x, y: parameters.y, kid: kid, alg: AccessTokenAlgorithm.name, use: "sig")
    }
}
