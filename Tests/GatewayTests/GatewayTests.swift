import CustodianJWT
import CustodianRPC
import Foundation
@testable import GatewayKit
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKit
import NIOCore
import Testing

private func json(_ buffer: ByteBuffer) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView))) as? [String: Any]
}

private func text(_ buffer: ByteBuffer) -> String { String(buffer: buffer) }

@Suite("Gateway routing, API styles and authentication")
struct GatewayTests {
    @Test func bodyPathAndQueryReachTheServiceAndTheResultComesBackAsIs() async throws {
        try await GatewayHarness.withGateway { client, _ in
            try await client.execute(
                uri: "/account/echo?a=1&a=2&b=x", method: .post,
                headers: [.contentType: "application/json", HTTPField.Name("X-Request-Id")!: "req-1"],
                body: ByteBuffer(string: #"{"pseudonym": 812345, "nested": {"ok": true}}"#)
            ) { response in
                #expect(response.status == .ok)
                #expect(response.headers[HTTPField.Name("X-Request-Id")!] == "req-1")
                let echo = try #require(json(response.body))
                let input = try #require(echo["input"] as? [String: Any])
                #expect((input["body"] as? [String: Any])?["pseudonym"] as? Int == 812345)
                #expect(input["query"] as? [String: [String]] == ["a": ["1", "2"], "b": ["x"]])
                #expect(echo["requestID"] as? String == "req-1")
                #expect(echo["principal"] == nil)
            }
        }
    }

    @Test func rawRoutesPassTheServicesStatusHeadersAndBinaryBodyThrough() async throws {
        try await GatewayHarness.withGateway { client, _ in
            try await client.execute(uri: "/l/abc123", method: .get) { response in
                #expect(response.status == .found)
                #expect(response.headers[.location] == "https://app.example/abc123")
                #expect(Array(response.body.readableBytesView) == [0, 1, 2, 255])
            }
        }
    }

    @Test func queryValuesAreDecodedAsFormsEncodeThem() async throws {
        try await GatewayHarness.withGateway { client, _ in
            try await client.execute(
                uri: "/account/echo?data=a+b%2Bc%20d&caf%C3%A9=%E2%82%AC&bad=%ZZ&empty=&bare", method: .post,
                body: ByteBuffer(string: "{}")
            ) { response in
                let input = try #require(json(response.body)?["input"] as? [String: Any])
                #expect(input["query"] as? [String: [String]] == ["data": ["a b+c d"], "café": ["€"], "bad": ["%ZZ"], "empty": [""], "bare": [""]])
            }
        }
    }

    @Test func aRouteForwardsOnlyTheHeadersItNames() async throws {
        try await GatewayHarness.withGateway { client, _ in
            try await client.execute(
                uri: "/l/abc123", method: .get,
                headers: [.userAgent: "Mozilla/5.0 (iPhone)", .cookie: "session=secret", .acceptLanguage: "nl"]
            ) { response in
                #expect(response.headers[HTTPField.Name("X-Forwarded-Headers")!] == "user-agent=Mozilla/5.0 (iPhone)")
            }
            // Routes that name no headers send none: the member is left out of the input.
            try await client.execute(uri: "/account/echo", method: .post, headers: [.userAgent: "curl/8"], body: ByteBuffer(string: "{}")) {
                response in
                let input = try #require(json(response.body)?["input"] as? [String: Any])
                #expect(input["headers"] == nil)
            }
        }
    }

    @Test func lemonResultsComeInTheEnvelopeWithTheRoutesStatus() async throws {
        try await GatewayHarness.withGateway { client, _ in
            try await client.execute(uri: "/api/v1/echo/anna", method: .get) { response in
                #expect(response.status == .ok)
                let body = try #require(json(response.body))
                // The document's envelope: a success carries no message.
                #expect(text(response.body).hasSuffix(#","meta":{"code":200,"message":null,"success":true}}"# + "\n"))
                let data = try #require(body["data"] as? [String: Any])
                #expect((data["input"] as? [String: Any])?["path"] as? [String: String] == ["name": "anna"])
            }
            try await client.execute(uri: "/api/v1/created", method: .post, body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .created)
                #expect((json(response.body)?["meta"] as? [String: Any])?["code"] as? Int == 201)
            }
        }
    }

    @Test(arguments: [
        ("/fail/x", #"{"detail":"No such thing here"}"#),
        ("/oauth/fail", #"{"error":"thing_not_found","error_description":"No such thing here"}"#),
        ("/api/v1/fail", #"{"data":null,"meta":{"code":404,"message":"No such thing here","success":false}}"#),
        ("/admin/v1/fail", #"{"error":{"message":"No such thing here","reason":"thing_not_found"}}"#),
        ("/upload", #"{"error":"No such thing here"}"#),
        ("/route", #"{"error":"thing_not_found","message":"No such thing here"}"#),
    ])
    func serviceErrorsAreRenderedInEachAPIsShape(path: String, expected: String) async throws {
        try await GatewayHarness.withGateway { client, _ in
            try await client.execute(uri: path, method: .post, body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .notFound)
                #expect(text(response.body) == expected + "\n")
            }
        }
    }

    @Test func adminRoutesNeedAnAdminTokenThatAuthAccepts() async throws {
        try await GatewayHarness.withGateway { client, _ in
            try await client.execute(uri: "/admin/v1/echo", method: .post, body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .unauthorized)
                #expect(text(response.body) == #"{"error":{"message":"Authentication required","reason":"unauthenticated"}}"# + "\n")
            }
            try await client.execute(uri: "/admin/v1/echo", method: .post, headers: [.authorization: "Bearer wrong"], body: ByteBuffer(string: "{}"))
            { response in
                #expect(response.status == .unauthorized)
                #expect(text(response.body) == #"{"error":{"message":"Invalid admin session token","reason":"invalid_admin_token"}}"# + "\n")
            }
            try await client.execute(
                uri: "/admin/v1/echo", method: .post, headers: [.authorization: "Bearer \(GatewayHarness.adminToken)"], body: ByteBuffer(string: "{}")
            ) { response in
                #expect(response.status == .ok)
                let principal = try #require(json(response.body)?["principal"] as? [String: Any])
                #expect(principal["kind"] as? String == "admin")
                #expect(principal["id"] as? String == "admin-1")
            }
        }
    }

    @Test func opaqueTokensAreForwardedToTheOwningService() async throws {
        try await GatewayHarness.withGateway { client, _ in
            try await client.execute(uri: "/device/opaque", method: .get, headers: [.authorization: "Bearer some-session"]) { response in
                #expect(response.status == .ok)
                #expect(json(response.body)?["credential"] as? [String: String] == ["token": "some-session", "expectedKind": "account"])
            }
            try await client.execute(uri: "/device/opaque", method: .get) { response in
                #expect(response.status == .forbidden)
                #expect(text(response.body) == #"{"detail":"Not authenticated"}"# + "\n")
            }
        }
    }

    @Test func aValidAccessTokenBecomesThePrincipal() async throws {
        try await GatewayHarness.withGateway { client, harness in
            let token = try await harness.accessToken()
            try await client.execute(uri: "/admin/v1/jwt", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                #expect(response.status == .ok)
                let principal = try #require(json(response.body)?["principal"] as? [String: Any])
                #expect(principal["kind"] as? String == "app")
                #expect(principal["id"] as? String == "app-7")
                #expect(principal["session"] as? String == "session-1")
            }
        }
    }

    @Test func accessTokensAreRefusedWhenExpiredNotYetValidOrForSomeoneElse() async throws {
        try await GatewayHarness.withGateway { client, harness in
            let refused: [(String, String)] = [
                ("expired", try await harness.accessToken(issuedAt: Date().addingTimeInterval(-3600), lifetime: 60)),
                ("not yet valid", try await harness.accessToken(issuedAt: Date().addingTimeInterval(3600))),
                ("wrong audience", try await harness.accessToken(audience: "someone-else")),
                ("wrong issuer", try await harness.accessToken(issuer: "evil")),
                ("unknown key", try await harness.accessToken(key: .generate())),
                ("garbage", "not.a.jwt"),
            ]
            for (name, token) in refused {
                try await client.execute(uri: "/admin/v1/jwt", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                    #expect(response.status == .unauthorized, "\(name)")
                    #expect((json(response.body)?["error"] as? [String: String])?["reason"] == "invalid_token", "\(name)")
                }
            }
            let wrongKind = try await harness.accessToken(kind: "device")
            try await client.execute(uri: "/admin/v1/jwt", method: .get, headers: [.authorization: "Bearer \(wrongKind)"]) { response in
                #expect(response.status == .forbidden)
            }
        }
    }

    @Test func theAlgorithmIsPinnedToES256() async throws {
        try await GatewayHarness.withGateway { client, harness in
            // An HMAC token under the same key id: accepting it would let anyone holding the public key sign.
            let keys = JWTKeyCollection()
            await keys.add(
                hmac: HMACKey(from: Data(harness.signingKey.publicJWK!.x.utf8)), digestAlgorithm: .sha256,
                kid: JWKIdentifier(string: harness.signingKey.kid))
            let claims = AccessClaims(
                subject: "app-7", kind: "app", session: nil, scopes: [], issuer: "custodian", audience: "custodian-api", lifetime: 600)
            let token = try await keys.sign(claims, kid: JWKIdentifier(string: harness.signingKey.kid))
            try await client.execute(uri: "/admin/v1/jwt", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                #expect(response.status == .unauthorized)
            }
        }
    }

    @Test func formBodiesAreParsedWhereTheAPITakesThemAndJSONElsewhere() async throws {
        try await GatewayHarness.withGateway { client, _ in
            try await client.execute(
                uri: "/register", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "device_id=abc+def&key=%2Fx%3D")
            ) { response in
                #expect(response.status == .ok)
                let input = try #require(json(response.body)?["input"] as? [String: Any])
                #expect(input["body"] as? [String: String] == ["device_id": "abc def", "key": "/x="])
            }
            try await client.execute(
                uri: "/register", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "bad=%ZZ")
            ) { response in
                #expect(response.status == .badRequest)
                #expect(text(response.body) == #"{"error":"The form body is not valid URL encoding"}"# + "\n")
            }
            // curl -d labels JSON as a form; the Twomes API reads it as JSON all the same.
            try await client.execute(
                uri: "/account/echo", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: #"{"a":1}"#)
            ) { response in
                #expect(response.status == .ok)
                #expect(((json(response.body)?["input"] as? [String: Any])?["body"] as? [String: Int]) == ["a": 1])
            }
        }
    }

    @Test func aFormIsKnownByItsContentTypeInAnyCase() {
        #expect(RouteForwarder.namesFormEncoding("application/x-www-form-urlencoded"))
        #expect(RouteForwarder.namesFormEncoding("Application/X-WWW-Form-URLEncoded; charset=UTF-8"))
        #expect(!RouteForwarder.namesFormEncoding("application/x-www-form"))
        #expect(!RouteForwarder.namesFormEncoding("application/json"))
        #expect(!RouteForwarder.namesFormEncoding(""))
    }

    @Test func oversizeAndOverdeepBodiesAreRefused() async throws {
        try await GatewayHarness.withGateway { client, _ in
            try await client.execute(uri: "/account/echo", method: .post, body: ByteBuffer(string: String(repeating: " ", count: 1025))) { response in
                #expect(response.status == .contentTooLarge)
                #expect(text(response.body) == #"{"detail":"The request body exceeds 1024 bytes"}"# + "\n")
            }
            let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
            try await client.execute(uri: "/api/v1/created", method: .post, body: ByteBuffer(string: deep)) { response in
                #expect(response.status == .badRequest)
                #expect((json(response.body)?["meta"] as? [String: Any])?["success"] as? Bool == false)
            }
        }
    }

    @Test func aServiceWithoutReplicasIsA503AtOnceInTheRoutesStyle() async throws {
        try await GatewayHarness.withGateway { client, _ in
            let started = ContinuousClock.now
            try await client.execute(uri: "/account/down", method: .post, body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] == "1")
                #expect(text(response.body) == #"{"detail":"The routes service is temporarily unavailable"}"# + "\n")
            }
            try await client.execute(uri: "/route/down", method: .post, body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(json(response.body)?["error"] as? String == "service_unavailable")
            }
            // Not waiting for the harness's 60 s service deadline; generous for a loaded machine.
            #expect(ContinuousClock.now - started < .seconds(20))
        }
    }
}
