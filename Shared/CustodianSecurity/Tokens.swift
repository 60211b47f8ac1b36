import Crypto
import Foundation

/// Bearer tokens, activation tokens and secrets: 256 bits from the system CSPRNG, handed out once,
/// stored only as their SHA-256 hash and compared in constant time.
public enum SecretToken {
    /// 32 random bytes as unpadded URL-safe base64 (43 characters), the shape `secrets.token_urlsafe(32)` gives.
    public static func generate(byteCount: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return base64URL(Data(bytes))
    }

    /// The value stored in place of a token.
    public static func hash(_ token: String) -> Data {
        Data(SHA256.hash(data: Data(token.utf8)))
    }

    public static func hashHex(_ token: String) -> String {
        Hex.encode(hash(token))
    }

    /// Compares two hashes without leaking where they differ.
    public static func constantTimeEquals(_ lhs: Data, _ rhs: Data) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }

    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
