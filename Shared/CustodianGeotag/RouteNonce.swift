import Crypto
import CustodianSecurity
import Foundation

/// The nonce the app draws for one route recording (docs/geotag.md, "Route format"): 16 bytes from the system
/// CSPRNG, written as 32 upper-case hex digits so that the QR text stays within the QR alphanumeric character set
/// (the app shows an alphanumeric QR code, level Q). It salts the route's key and names the route for look-ups.
public struct RouteNonce: Sendable, Hashable, CustomStringConvertible {
    public static let byteCount = 16
    public let bytes: Data

    public init(bytes: Data) throws {
        guard bytes.count == Self.byteCount else { throw RouteFormatError.invalidNonce }
        self.bytes = bytes
    }

    /// 32 hex digits, either case.
    public init(text: some StringProtocol) throws {
        guard text.utf8.count == Self.byteCount * 2, let bytes = Hex.decode(text) else { throw RouteFormatError.invalidNonce }
        self.bytes = bytes
    }

    private init(checked bytes: Data) {
        self.bytes = bytes
    }

    public static func random() -> RouteNonce {
        var generator = SystemRandomNumberGenerator()
        return RouteNonce(checked: Data((0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }))
    }

    public var text: String { Hex.encode(bytes).uppercased() }
    public var description: String { text }

    /// What the phone may send with the route so that the desktop tool finds it from the QR photo alone:
    /// lowercase hex of SHA-256("custodian-route-lookup" ‖ nonce bytes). One-way, so the server never
    /// learns the nonce, which salts the key.
    public var lookupID: String {
        Hex.encode(SHA256.hash(data: Data(Self.lookupDomain.utf8) + bytes))
    }

    static let lookupDomain = "custodian-route-lookup"
}

/// The text of the QR code the app shows while it records (docs/geotag.md, "Route format"): `<unix time>-<nonce>`, the time in whole
/// seconds (UTC) when the code was drawn, e.g. `1564650590-3F2A9C01D4E5B6A7980112233445566F`.
public struct RouteQRText: Sendable, Hashable, CustomStringConvertible {
    public var time: Int64
    public var nonce: RouteNonce

    public init(time: Int64, nonce: RouteNonce) {
        self.time = time
        self.nonce = nonce
    }

    public init(parsing text: some StringProtocol) throws {
        let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].allSatisfy(\.isASCII), let time = Int64(parts[0]), time >= 0 else {
            throw RouteFormatError.invalidQRText
        }
        self.time = time
        self.nonce = try RouteNonce(text: parts[1])
    }

    public var text: String { "\(time)-\(nonce.text)" }
    public var description: String { text }
}
