import Crypto
import CustodianContracts
import CustodianRPC
import CustodianSecurity
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The gateway's half of the `signature` scheme (docs/geotag.md): it collects what the signature covers
/// (method, request target as sent, timestamp, SHA-256 of the body's bytes) and has `routes`, which holds
/// the consumers' secrets, check it. Missing headers are refused here, without a call.
enum SignedRequest {
    static let keyHeader = HTTPField.Name("X-API-Key")!
    static let timestampHeader = HTTPField.Name("X-API-Timestamp")!
    static let signatureHeader = HTTPField.Name("X-API-Sig")!

    static func check(_ request: Request, body: ByteBuffer, style: APIStyle) throws -> SignatureCheck {
        func header(_ name: HTTPField.Name, _ missing: String) throws -> String {
            let values = request.headers[values: name]
            guard values.count <= 1 else {
                throw GatewayError(
                    status: .unauthorized, reason: "invalid_signature_headers",
                    message: "\(name.rawName) is given \(values.count) times; give it once", style: style)
            }
            guard let value = values.first?.trimmingCharacters(in: .whitespaces), !value.isEmpty else {
                throw GatewayError(status: .unauthorized, reason: missing, message: "The \(name.rawName) header is missing", style: style)
            }
            return value
        }
        return SignatureCheck(
            key: try header(keyHeader, "missing_api_key"),
            method: request.method.rawValue,
            // The request target exactly as the client wrote it, which is what it signed.
            path: request.head.path ?? "/",
            timestamp: try header(timestampHeader, "missing_timestamp"),
            bodySha256: Hex.encode(SHA256.hash(data: body.readableBytesView)),
            signature: try header(signatureHeader, "missing_signature"))
    }
}
