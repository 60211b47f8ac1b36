import CustodianLemon
import Foundation

/// Builds the handshake's request bodies and checks its answer, independent of any transport, so that tests
/// can alter any field and a load generator can reuse it.
public struct HandshakeBuilder: Sendable {
    public let serverKey: ServerPublicKey
    public let clientSeed: String
    public let preMasterSecret: [UInt8]
    public let encryptedPreMasterSecret: String

    public init(serverKey: ServerPublicKey) throws {
        self.serverKey = serverKey
        self.clientSeed = Data((0..<SessionKeys.seedLength).map { _ in UInt8.random(in: .min ... .max) }).base64EncodedString()
        self.preMasterSecret = (0..<SessionKeys.preMasterSecretLength).map { _ in UInt8.random(in: .min ... .max) }
        self.encryptedPreMasterSecret = try serverKey.encryptPreMasterSecret(preMasterSecret).base64EncodedString()
    }

    /// The registration body: every field, signed.
    public func registration(app: LemonApp, operatingSystem: String, language: String, pushToken: String?) throws -> [String: String] {
        let signature = try app.sign(
            HandshakeSignature.registration(
                appId: app.appId, publicKey: app.publicKey, operatingSystem: operatingSystem, pushToken: pushToken,
                language: language, seed: clientSeed, preMasterSecret: encryptedPreMasterSecret))
        var body = [
            "AppId": app.appId, "PublicKey": app.publicKey, "OperatingSystem": operatingSystem, "Language": language,
            "Seed": clientSeed, "PreMasterSecret": encryptedPreMasterSecret, "Signature": signature,
        ]
        if let pushToken { body["PushToken"] = pushToken }
        return body
    }

    /// The authentication body of a known app.
    public func authentication(app: LemonApp, language: String?) throws -> [String: String] {
        let signature = try app.sign(
            HandshakeSignature.authentication(
                appId: app.appId, language: language, seed: clientSeed, preMasterSecret: encryptedPreMasterSecret))
        var body = ["AppId": app.appId, "Seed": clientSeed, "PreMasterSecret": encryptedPreMasterSecret, "Signature": signature]
        if let language { body["Language"] = language }
        return body
    }

    /// The session, once the server's signature over its token and both seeds checks against the pinned key.
    public func session(from data: [String: String]) throws -> LemonSession {
        guard let token = data["AccessToken"], let expiry = data["AccessTokenExpiry"], let serverSeed = data["Seed"],
            let signature = data["Signature"]
        else { throw LemonClientError.malformedAnswer("the handshake answer lacks a field") }
        guard
            serverKey.verify(signature: signature, of: HandshakeSignature.server(accessToken: token, clientSeed: clientSeed, serverSeed: serverSeed))
        else {
            throw LemonClientError.serverSignature
        }
        guard let serverSeedBytes = Data(base64Encoded: serverSeed), serverSeedBytes.count == SessionKeys.seedLength,
            let clientSeedBytes = Data(base64Encoded: clientSeed)
        else { throw LemonClientError.malformedAnswer("the server seed is not 32 bytes of base64") }
        let keys = SessionKeys.derive(preMasterSecret: preMasterSecret, clientSeed: Array(clientSeedBytes), serverSeed: Array(serverSeedBytes))
        return LemonSession(accessToken: token, accessTokenExpiry: expiry, keys: keys)
    }
}

public enum LemonClientError: Error, CustomStringConvertible, Equatable {
    case serverSignature
    case malformedAnswer(String)
    case refused(status: Int, message: String)

    public var description: String {
        switch self {
        case .serverSignature: "the server's signature does not match its pinned key"
        case .malformedAnswer(let problem): "unexpected answer: \(problem)"
        case .refused(let status, let message): "refused: \(status) \(message)"
        }
    }
}
