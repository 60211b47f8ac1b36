import CustodianRPC
import Foundation
import GatewayKit
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// What the geotag API needs of the gateway: text bodies, a route's own body limit, bodiless 204s, and
/// the `signature` scheme's header checks (the HMAC itself is checked by `routes`; IntegrationTests cover it).
@Suite("Text bodies, 204s and signed routes")
struct SignedAndTextRouteTests {
    private static func echoedBody(_ buffer: ByteBuffer) -> Any? {
        let echo = (try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView))) as? [String: Any]
        return (echo?["input"] as? [String: Any])?["body"]
    }

    @Test func aTextRouteGetsTheBodyAsAStringWhateverItsType() async throws {
        try await GatewayHarness.withGateway { client, _ in
            for contentType in ["text/plain", "application/json", "application/x-www-form-urlencoded"] {
                try await client.execute(
                    uri: "/route/text", method: .post, headers: [.contentType: contentType],
                    body: ByteBuffer(string: "AQID\r\nBAU=")
                ) { response in
                    #expect(response.status == .ok)
                    #expect(Self.echoedBody(response.body) as? String == "AQID\r\nBAU=")
                }
            }
            try await client.execute(uri: "/route/text", method: .post) { response in
                #expect(Self.echoedBody(response.body) is NSNull)
            }
            try await client.execute(uri: "/route/text", method: .post, body: ByteBuffer(bytes: [0x41, 0xff])) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body) == #"{"error":"malformed_body","message":"The request body is not UTF-8 text"}"# + "\n")
            }
        }
    }

    @Test func aRouteMayHaveItsOwnBodyLimit() async throws {
        try await GatewayHarness.withGateway { client, _ in
            // The harness's gateway-wide limit is 1024 bytes; this route's is 2048.
            try await client.execute(uri: "/route/text", method: .post, body: ByteBuffer(string: String(repeating: "A", count: 2048))) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/route/text", method: .post, body: ByteBuffer(string: String(repeating: "A", count: 2049))) { response in
                #expect(response.status == .contentTooLarge)
                #expect(String(buffer: response.body) == #"{"error":"body_too_large","message":"The request body exceeds 2048 bytes"}"# + "\n")
            }
        }
    }

    @Test func a204HasNoBody() async throws {
        try await GatewayHarness.withGateway { client, _ in
            try await client.execute(uri: "/route/gone", method: .delete) { response in
                #expect(response.status == .noContent)
                #expect(response.body.readableBytes == 0)
            }
        }
    }

    @Test func signedRoutesNeedEachHeaderOnceAndAskRoutes() async throws {
        let key = HTTPField.Name("X-API-Key")!, timestamp = HTTPField.Name("X-API-Timestamp")!, signature = HTTPField.Name("X-API-Sig")!
        let all: HTTPFields = [key: "k", timestamp: "1764000000", signature: String(repeating: "0", count: 64)]
        try await GatewayHarness.withGateway { client, _ in
            for (missing, reason) in [(key, "missing_api_key"), (timestamp, "missing_timestamp"), (signature, "missing_signature")] {
                var headers = all
                headers[missing] = nil
                try await client.execute(uri: "/route/signed", method: .post, headers: headers, body: ByteBuffer(string: "AQID")) { response in
                    #expect(response.status == .unauthorized)
                    #expect(String(buffer: response.body) == #"{"error":"\#(reason)","message":"The \#(missing.rawName) header is missing"}"# + "\n")
                }
            }
            var twice = all
            twice.append(HTTPField(name: key, value: "other"))
            try await client.execute(uri: "/route/signed", method: .post, headers: twice) { response in
                #expect(response.status == .unauthorized)
                #expect(
                    String(buffer: response.body) == #"{"error":"invalid_signature_headers","message":"X-API-Key is given 2 times; give it once"}"#
                        + "\n")
            }
            // With every header the gateway asks `routes`, which is down here: the request is not let through.
            try await client.execute(uri: "/route/signed", method: .post, headers: all) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(
                    String(buffer: response.body) == #"{"error":"service_unavailable","message":"The routes service is temporarily unavailable"}"#
                        + "\n")
            }
        }
    }

    @Test func otherSchemesAreCheckedBeforeTheBodyIsRead() async throws {
        try await GatewayHarness.withGateway { client, _ in
            try await client.execute(uri: "/admin/v1/echo", method: .post, body: ByteBuffer(string: String(repeating: " ", count: 4096))) {
                response in
                #expect(response.status == .unauthorized)
            }
        }
    }
}
