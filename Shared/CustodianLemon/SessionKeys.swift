import CustodianContracts
import Crypto
import Foundation

/// The two keys of a tracing-app session, derived on both sides from the handshake (docs/lemon.md):
/// HKDF-SHA256 over the pre-master secret, salted with both seeds, so that neither side alone picks them.
public struct SessionKeys: Sendable, Equatable {
    /// AES-256-CBC key for the payloads.
    public let encryption: [UInt8]
    /// HMAC-SHA256 key over IV ‖ ciphertext.
    public let authentication: [UInt8]

    public static let preMasterSecretLength = 48
    public static let seedLength = 32
    static let info = Array("LEMON-SESSION-1".utf8)

    public init(encryption: [UInt8], authentication: [UInt8]) {
        self.encryption = encryption
        self.authentication = authentication
    }

    public static func derive(preMasterSecret: [UInt8], clientSeed: [UInt8], serverSeed: [UInt8]) -> SessionKeys {
        let material = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: preMasterSecret), salt: clientSeed + serverSeed, info: info, outputByteCount: 64)
        let bytes = material.withUnsafeBytes { Array($0) }
        return SessionKeys(encryption: Array(bytes[0..<32]), authentication: Array(bytes[32..<64]))
    }

    /// Both keys, base64 each, as `auth` hands them to the gateway.
    public var wire: WireSessionKeys {
        WireSessionKeys(encryptionKey: Data(encryption).base64EncodedString(), macKey: Data(authentication).base64EncodedString())
    }
}

extension WireSessionKeys {
    public var keys: SessionKeys? {
        guard let encryption = Data(base64Encoded: encryptionKey), encryption.count == 32,
            let authentication = Data(base64Encoded: macKey), authentication.count == 32
        else { return nil }
        return SessionKeys(encryption: Array(encryption), authentication: Array(authentication))
    }
}
