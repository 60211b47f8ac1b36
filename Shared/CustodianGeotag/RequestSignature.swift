import Crypto
import CustodianSecurity
import Foundation

/// How a geotag client signs a request (docs/geotag.md, "Signed requests"): an HMAC-SHA256, keyed with
/// the UTF-8 bytes of the consumer secret, over four lines that name exactly what was sent.
///
///     METHOD \n PATH_WITH_QUERY \n TIMESTAMP \n hex(SHA-256(body))
///
/// The path and query are the request target as written on the request line, byte for byte (not decoded,
/// not reordered), so that client and server never disagree about a normalisation. The body's digest binds
/// the body without making the canonical string as long as the body.
public enum RequestSignature {
    public static let keyHeader = "X-API-Key"
    public static let timestampHeader = "X-API-Timestamp"
    public static let signatureHeader = "X-API-Sig"

    /// How far a request's timestamp may be from the server's clock, either way.
    public static let allowedSkewSeconds: Int64 = 300

    public static func canonicalString(method: String, pathWithQuery: String, timestamp: String, bodySHA256: String) -> String {
        [method.uppercased(), pathWithQuery, timestamp, bodySHA256.lowercased()].joined(separator: "\n")
    }

    public static func bodyDigest(_ body: some DataProtocol) -> String {
        Hex.encode(SHA256.hash(data: body))
    }

    /// The `X-API-Sig` value: lowercase hex of the HMAC.
    public static func signature(secret: String, canonicalString: String) -> String {
        Hex.encode(HMAC<SHA256>.authenticationCode(for: Data(canonicalString.utf8), using: SymmetricKey(data: Data(secret.utf8))))
    }

    /// Whether `signatureHex` is the HMAC of `canonicalString`, compared in constant time.
    public static func isValid(signatureHex: String, secret: String, canonicalString: String) -> Bool {
        guard signatureHex.utf8.count == 64, let code = Hex.decode(signatureHex) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: Data(canonicalString.utf8), using: SymmetricKey(data: Data(secret.utf8)))
    }

    /// The three headers of a signed request.
    public static func headers(
        key: String, secret: String, method: String, pathWithQuery: String,
        body: some DataProtocol, timestamp: Int64 = Int64(Date().timeIntervalSince1970)
    ) -> [(String, String)] {
        let canonical = canonicalString(method: method, pathWithQuery: pathWithQuery, timestamp: String(timestamp), bodySHA256: bodyDigest(body))
        return [(keyHeader, key), (timestampHeader, String(timestamp)), (signatureHeader, signature(secret: secret, canonicalString: canonical))]
    }
}
