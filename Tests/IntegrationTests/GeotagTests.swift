import Crypto
import CustodianGeotag
import GeotagClient
import Foundation
import NIOHTTP1
import ProcessTestSupport
import Testing

extension PlatformTests {
    /// The geotag route store (docs/geotag.md) through the gateway: API consumers, signed requests, routes.
    /// Serialized: the 1 MiB uploads and Argon2id are heavy for a small machine that runs every suite at once.
    @Suite("Geotag routes: signed requests → routes → PostgreSQL", .serialized)
    struct Geotag {
        struct Consumer {
            var key: String
            var secret: String
        }

        static func consumer(_ name: String = "Geotag test app") async throws -> Consumer {
            let reply = try await platform.request(.POST, "/admin/v1/api-consumers", json: #"{"name": "\#(name)"}"#, admin: true)
            #expect(reply.status == 201, "\(reply.text)")
            return Consumer(
                key: try #require(reply.json?["consumer_key"] as? String), secret: try #require(reply.json?["consumer_secret"] as? String))
        }

        /// A request signed by `consumer` (at `timestamp`, now by default); `headers` replace the signature's.
        static func signed(
            _ method: HTTPMethod, _ target: String, body: Data = Data(), by consumer: Consumer,
            timestamp: Int64 = Int64(Date().timeIntervalSince1970), contentType: String? = nil,
            override: [String: String?] = [:]
        ) async throws -> RunningPlatform.Reply {
            var headers = RequestSignature.headers(
                key: consumer.key, secret: consumer.secret, method: method.rawValue,
                pathWithQuery: target, body: body, timestamp: timestamp)
            for (name, value) in override {
                headers.removeAll { $0.0 == name }
                if let value { headers.append((name, value)) }
            }
            if let contentType { headers.append(("Content-Type", contentType)) }
            return try await platform.request(method, target, rawBody: body.isEmpty ? nil : body, headers: headers)
        }

        static let tracks = Tracks([
            [
                Fix(latitude: 52.0907, longitude: 5.1214, altitude: 4.5, accuracy: 8, time: 1_764_000_000),
                Fix(latitude: 52.0911, longitude: 5.1222, altitude: 4.9, accuracy: 6, time: 1_764_000_005),
            ],
            [Fix(latitude: 52.1, longitude: 5.2, altitude: nil, accuracy: 20, time: 1_764_003_600)],
        ])

        static func sealedRoute(_ passphrase: String = "correct horse", nonce: RouteNonce = .random()) throws -> Data {
            try RouteSealer.seal(tracks: tracks, passphrase: passphrase, nonce: nonce)
        }

        /// What the server sees of any route: bytes it cannot read (no key derivation needed where nothing is opened).
        static func opaqueRoute() -> Data {
            var generator = SystemRandomNumberGenerator()
            return Data((0..<160).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        }

        // MARK: API consumers

        @Test func adminsCreateConsumersAndListThemWithoutSecrets() async throws {
            let platform = try platform
            let created = try await platform.request(.POST, "/admin/v1/api-consumers", json: #"{"name": "  DSLR Geotag (Android) "}"#, admin: true)
            #expect(created.status == 201, "\(created.text)")
            let body = try #require(created.json)
            #expect(Set(body.keys) == ["consumer_key", "consumer_secret", "name", "created_at"])
            let key = try #require(body["consumer_key"] as? String)
            let secret = try #require(body["consumer_secret"] as? String)
            #expect(key.count == 22 && secret.count == 43)
            #expect((key + secret).allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
            #expect(body["name"] as? String == "DSLR Geotag (Android)")
            #expect((body["created_at"] as? String).flatMap { try? Date($0, strategy: .iso8601) } != nil)

            let listed = try await platform.request(.GET, "/admin/v1/api-consumers", admin: true)
            #expect(listed.status == 200)
            #expect(!listed.text.contains(secret))
            let consumers = try #require(listed.json?["consumers"] as? [[String: Any]])
            let entry = try #require(consumers.first { $0["consumer_key"] as? String == key })
            #expect(Set(entry.keys) == ["consumer_key", "name", "created_at", "revoked_at"])
            #expect(entry["name"] as? String == "DSLR Geotag (Android)" && entry["created_at"] as? String == body["created_at"] as? String)
            #expect(entry["revoked_at"] is NSNull)

            // Sealed, never in clear; its hash beside it.
            #expect(try platform.rows(of: "routes.consumers", holding: secret, in: "secret_sealed") == 0)
            let hash = try platform.sql("SELECT encode(secret_sha256, 'hex') FROM routes.consumers WHERE consumer_key = '\(key)'")
            #expect(hash == SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined())

            let unnamed = try await platform.request(.POST, "/admin/v1/api-consumers", json: #"{"name": " "}"#, admin: true)
            #expect(unnamed.status == 422)
            #expect(
                unnamed.text
                    == #"{"error":{"message":"name: a name has 1 to 100 characters and no control characters","reason":"validation_failed"}}"# + "\n")
            let missing = try await platform.request(.POST, "/admin/v1/api-consumers", json: "{}", admin: true)
            #expect(missing.status == 422)
            #expect(try await platform.request(.POST, "/admin/v1/api-consumers", json: #"{"name": "x"}"#).status == 401)
            #expect(try await platform.request(.GET, "/admin/v1/api-consumers").status == 401)
        }

        // MARK: The route store

        @Test func storeFetchLookUpAndDeleteARouteAsTheAppAndDesktopToolDo() async throws {
            let platform = try platform
            let app = try await Self.consumer()
            let nonce = RouteNonce.random()
            let blob = try Self.sealedRoute(nonce: nonce)
            let before = Int64(Date().timeIntervalSince1970)
            // The app's form: bare base64 (wrapped as Android writes it), the lookup id in the query.
            let body = Data(blob.base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed]).utf8)
            let stored = try await Self.signed(.POST, "/route?lookup_id=\(nonce.lookupID)", body: body, by: app, contentType: "text/plain")
            #expect(stored.status == 201, "\(stored.text)")
            #expect(stored.headers.first(name: "Content-Type") == "application/json")
            let routeID = try #require(stored.json?["route_id"] as? String)
            let created = try #require(stored.json?["creation_time"] as? Int)
            #expect(stored.json?.count == 2)
            #expect(routeID.count == 22)
            #expect((before - 1...before + 5).contains(Int64(created)))

            // The desktop tool, with its own consumer key, by route id and by the lookup id from the QR photo.
            let desktop = try await Self.consumer("Desktop tool")
            for target in ["/route/\(routeID)", "/route/lookup/\(nonce.lookupID)"] {
                let fetched = try await Self.signed(.GET, target, by: desktop)
                #expect(fetched.status == 200, "\(target): \(fetched.text)")
                #expect(fetched.json?["route_id"] as? String == routeID)
                #expect(fetched.json?["creation_time"] as? Int == created)
                let route = try #require((fetched.json?["route"] as? String).flatMap { Data(base64Encoded: $0) })
                #expect(route == blob)
                #expect(try RouteSealer.open(route, passphrase: "correct horse", nonce: nonce) == Self.tracks)
            }
            #expect(try platform.sql("SELECT count(*) FROM routes.routes WHERE route_id = '\(routeID)' AND lookup_id = '\(nonce.lookupID)'") == "1")

            // Only the app that stored it deletes it (docs/geotag.md, "Fetching and deleting"); then it is gone.
            let refused = try await Self.signed(.DELETE, "/route/\(routeID)", by: desktop)
            #expect(refused.status == 403)
            #expect(refused.text == #"{"error":"not_route_owner","message":"Only the API consumer that stored this route may delete it"}"# + "\n")
            let deletedAt = Int64(Date().timeIntervalSince1970)
            let deleted = try await Self.signed(.DELETE, "/route/\(routeID)", by: app, timestamp: deletedAt)
            #expect(deleted.status == 204)
            #expect(deleted.body.isEmpty)
            #expect(try platform.sql("SELECT count(*) FROM routes.routes WHERE route_id = '\(routeID)'") == "0")
            for target in ["/route/\(routeID)", "/route/lookup/\(nonce.lookupID)"] {
                let gone = try await Self.signed(.GET, target, by: app)
                #expect(gone.status == 404)
                #expect(gone.text == #"{"error":"route_not_found","message":"No such route"}"# + "\n")
            }
            // Signed at another second: the same request at the same second has the same signature, a replay.
            #expect(try await Self.signed(.DELETE, "/route/\(routeID)", by: app, timestamp: deletedAt - 1).status == 404)
            #expect(try await Self.signed(.GET, "/route/AAAAAAAAAAAAAAAAAAAAAA", by: app).status == 404)
            #expect(try await Self.signed(.GET, "/route/not-a-route-id", by: app).status == 404)
        }

        @Test func aRetryOfTheSameBodyGetsTheSameRouteAndTheJSONFormWorks() async throws {
            let platform = try platform
            let app = try await Self.consumer()
            let nonce = RouteNonce.random()
            let blob = Self.opaqueRoute()
            let body = Data(#"{"route": "\#(blob.base64EncodedString())", "lookup_id": "\#(nonce.lookupID)"}"#.utf8)
            let now = Int64(Date().timeIntervalSince1970)
            let first = try await Self.signed(.POST, "/route", body: body, by: app, timestamp: now, contentType: "application/json")
            #expect(first.status == 201, "\(first.text)")
            // The retry is signed anew (another timestamp), as every request must be.
            let retry = try await Self.signed(.POST, "/route", body: body, by: app, timestamp: now - 1, contentType: "application/json")
            #expect(retry.status == 201, "\(retry.text)")
            #expect(retry.text == first.text)
            let routeID = try #require(first.json?["route_id"] as? String)
            #expect(try platform.sql("SELECT count(*) FROM routes.routes WHERE lookup_id = '\(nonce.lookupID)'") == "1")

            // The same lookup id for another route is refused, whoever sends it.
            let other = Data(#"{"route": "\#(Self.opaqueRoute().base64EncodedString())", "lookup_id": "\#(nonce.lookupID)"}"#.utf8)
            let taken = try await Self.signed(.POST, "/route", body: other, by: app)
            #expect(taken.status == 409)
            #expect(
                taken.text
                    == #"{"error":"lookup_id_taken","message":"Another route is stored under this lookup_id; a new recording needs a new nonce"}"#
                    + "\n")

            // Another consumer storing the very same bytes stores a route of its own.
            let someoneElse = try await Self.consumer("Second app")
            let theirs = try await Self.signed(.POST, "/route", body: Data(blob.base64EncodedString().utf8), by: someoneElse)
            #expect(theirs.status == 201)
            #expect(theirs.json?["route_id"] as? String != routeID)
        }

        @Test func badBodiesAre4xxInTheGeotagShape() async throws {
            let app = try await Self.consumer()
            let cases: [(Data, Int, String)] = [
                (Data("not base64!".utf8), 400, #"{"error":"invalid_base64","message":"The route is not valid base64"}"#),
                (
                    Data(), 400,
                    #"{"error":"missing_route","message":"The body must be the encrypted route in base64, or {\"route\": \"<base64>\", \"lookup_id\": \"<hex>\"}"}"#
                ),
                (
                    Data("{\"route\": 5}".utf8), 400,
                    #"{"error":"missing_route","message":"The JSON body needs \"route\": the encrypted route in base64"}"#
                ),
                (
                    Data("{\"route\": \"AQID\"".utf8), 400,
                    #"{"error":"malformed_body","message":"The request body starts with '{' but is not valid JSON"}"#
                ),
                (Data([0x41, 0xff, 0x41, 0x41]), 400, #"{"error":"malformed_body","message":"The request body is not UTF-8 text"}"#),
                (
                    Data("{\"route\": \"AQID\", \"lookup_id\": \"abc\"}".utf8), 400,
                    #"{"error":"invalid_lookup_id","message":"lookup_id must be 64 hex digits: hex(SHA-256(\"custodian-route-lookup\" ‖ nonce))"}"#
                ),
            ]
            for (body, status, expected) in cases {
                let reply = try await Self.signed(.POST, "/route", body: body, by: app)
                #expect(reply.status == status, "\(String(decoding: body, as: UTF8.self))")
                #expect(reply.text == expected + "\n")
            }
            let badLookup = try await Self.signed(.GET, "/route/lookup/xyz", by: app)
            #expect(badLookup.status == 400)
            #expect(badLookup.json?["error"] as? String == "invalid_lookup_id")
            let unknownLookup = try await Self.signed(.GET, "/route/lookup/\(RouteNonce.random().lookupID)", by: app)
            #expect(unknownLookup.status == 404)
        }

        @Test func routesUpToOneMebibyteAreStoredAndLargerOnesRefused() async throws {
            let app = try await Self.consumer()
            let largest = Data((0..<1024 * 1024).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let stored = try await Self.signed(.POST, "/route", body: Data(largest.base64EncodedString().utf8), by: app)
            #expect(stored.status == 201, "\(stored.text)")
            let routeID = try #require(stored.json?["route_id"] as? String)
            // The bytes themselves come back in the fetch tests; here the size and digest suffice.
            let digest = SHA256.hash(data: largest).map { String(format: "%02x", $0) }.joined()
            #expect(
                try platform.sql("SELECT octet_length(blob), encode(blob_sha256, 'hex') FROM routes.routes WHERE route_id = '\(routeID)'")
                    == "1048576|\(digest)")

            let tooLarge = try await Self.signed(.POST, "/route", body: Data((largest + Data([1])).base64EncodedString().utf8), by: app)
            #expect(tooLarge.status == 413)
            #expect(
                tooLarge.text == #"{"error":"route_too_large","message":"The encrypted route has 1048577 bytes; at most 1048576 are accepted"}"#
                    + "\n")
            let hugeBody = try await Self.signed(.POST, "/route", body: Data(repeating: UInt8(ascii: "A"), count: 1_572_865), by: app)
            #expect(hugeBody.status == 413)
            #expect(hugeBody.text == #"{"error":"body_too_large","message":"The request body exceeds 1572864 bytes"}"# + "\n")
        }

        // MARK: Signed requests

        @Test func everySignatureFailureIsA401WithItsOwnReason() async throws {
            let platform = try platform
            let app = try await Self.consumer()
            let body = Data(Self.opaqueRoute().base64EncodedString().utf8)
            let now = Int64(Date().timeIntervalSince1970)
            func refusal(_ reply: RunningPlatform.Reply) -> String {
                "\(reply.status) \(reply.json?["error"] as? String ?? reply.text): \(reply.json?["message"] as? String ?? "")"
            }

            let unsigned = try await platform.request(.POST, "/route", rawBody: body)
            #expect(refusal(unsigned) == "401 missing_api_key: The X-API-Key header is missing")
            #expect(
                refusal(try await Self.signed(.POST, "/route", body: body, by: app, override: ["X-API-Timestamp": nil]))
                    == "401 missing_timestamp: The X-API-Timestamp header is missing")
            #expect(
                refusal(try await Self.signed(.POST, "/route", body: body, by: app, override: ["X-API-Sig": nil]))
                    == "401 missing_signature: The X-API-Sig header is missing")
            #expect(
                refusal(try await Self.signed(.POST, "/route", body: body, by: Consumer(key: "no-such-key", secret: app.secret)))
                    == "401 unknown_api_key: Unknown API key")
            #expect(
                refusal(try await Self.signed(.POST, "/route", body: body, by: Consumer(key: app.key, secret: "a guessed secret")))
                    == "401 invalid_signature: The signature does not match the request: X-API-Sig must be the HMAC-SHA256, keyed with the consumer secret, of METHOD\\nPATH_WITH_QUERY\\nTIMESTAMP\\nhex(SHA-256(body)) (docs/geotag.md)"
            )
            #expect(
                refusal(try await Self.signed(.POST, "/route", body: body, by: app, override: ["X-API-Sig": "abc"]))
                    == "401 invalid_signature: X-API-Sig must be 64 hex digits: the HMAC-SHA256 of the canonical request")
            #expect(
                refusal(try await Self.signed(.POST, "/route", body: body, by: app, override: ["X-API-Timestamp": "yesterday"]))
                    == "401 invalid_timestamp: X-API-Timestamp must be the request's Unix time in whole seconds (UTC)")

            // A body, path or method other than the signed one.
            let headers = RequestSignature.headers(key: app.key, secret: app.secret, method: "POST", pathWithQuery: "/route", body: body)
            let tampered = try await platform.request(.POST, "/route", rawBody: body + Data("AAAA".utf8), headers: headers)
            #expect(tampered.status == 401 && tampered.json?["error"] as? String == "invalid_signature")
            let otherPath = try await platform.request(.POST, "/route?lookup_id=\(RouteNonce.random().lookupID)", rawBody: body, headers: headers)
            #expect(otherPath.status == 401 && otherPath.json?["error"] as? String == "invalid_signature")

            // Clock skew beyond five minutes either way, though correctly signed.
            let stale = try await Self.signed(.POST, "/route", body: body, by: app, timestamp: now - 400)
            #expect(stale.status == 401 && stale.json?["error"] as? String == "timestamp_out_of_window")
            #expect((stale.json?["message"] as? String)?.contains("behind the server's clock") == true, "\(stale.text)")
            let early = try await Self.signed(.POST, "/route", body: body, by: app, timestamp: now + 400)
            #expect(early.status == 401 && early.json?["error"] as? String == "timestamp_out_of_window")
            #expect((early.json?["message"] as? String)?.contains("ahead of the server's clock") == true)

            // The same signed request twice: the second is a replay, whatever it asks for.
            let fresh = RequestSignature.headers(key: app.key, secret: app.secret, method: "POST", pathWithQuery: "/route", body: body)
            let original = try await platform.request(.POST, "/route", rawBody: body, headers: fresh)
            #expect(original.status == 201, "\(original.text)")
            let replayed = try await platform.request(.POST, "/route", rawBody: body, headers: fresh)
            #expect(refusal(replayed) == "401 replayed_signature: This signature was used before: sign each request anew, with its own timestamp")
            let signature = try #require(fresh.first { $0.0 == "X-API-Sig" }?.1)
            #expect(try platform.sql("SELECT count(*) FROM routes.seen_signatures WHERE signature = '\\x\(signature)'::bytea") == "1")
        }

        // MARK: Command line

        @Test func theCommandLineCreatesAConsumerAndUploadsAGPXTrackThatOpensWithThePassphrase() async throws {
            let platform = try platform
            let created = try await platform.custodian([
                "admin", "create-consumer", "--database-url", try platform.adminDatabaseURL, "--name", "GPS logger import",
                "--sealing-key-file", platform.dataDirectory + "/secrets/sealing-key",
            ])
            #expect(created.status == 0, "\(created.output)")
            let consumer = try #require(try JSONSerialization.jsonObject(with: Data(created.output.utf8)) as? [String: String])
            let key = try #require(consumer["consumer_key"]), secret = try #require(consumer["consumer_secret"])
            #expect(consumer["name"] == "GPS logger import")

            let gpx = NSTemporaryDirectory() + "cit-\(UUID().uuidString).gpx"
            defer { try? FileManager.default.removeItem(atPath: gpx) }
            try Self.gpx.write(toFile: gpx, atomically: true, encoding: .utf8)
            let upload = try await platform.custodian([
                "route", "upload", "--gpx", gpx, "--passphrase", "-Tour of Utrecht-", "--server", platform.baseURL,
                "--key", key, "--secret", secret, "--insecure",
            ])
            #expect(upload.status == 0, "\(upload.output)")
            var printed: [String: String] = [:]
            for line in upload.output.split(separator: "\n") {
                let parts = line.split(separator: " ", maxSplits: 1)
                if parts.count == 2 { printed[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces) }
            }
            let routeID = try #require(printed["route_id"])
            let qr = try RouteQRText(parsing: try #require(printed["qr_text"]))
            #expect(abs(qr.time - Int64(Date().timeIntervalSince1970)) < 30)
            #expect(printed["lookup_id"] == qr.nonce.lookupID)
            #expect(printed["tracks"] == "2, 3 fixes (1 point without a time left out)")

            // The desktop tool's way back: lookup id from the QR text, then the passphrase and nonce open it.
            let fetched = try await Self.signed(.GET, "/route/lookup/\(qr.nonce.lookupID)", by: Consumer(key: key, secret: secret))
            #expect(fetched.json?["route_id"] as? String == routeID)
            let blob = try #require((fetched.json?["route"] as? String).flatMap { Data(base64Encoded: $0) })
            // Keys and secrets may start with "-" (URL-safe base64), and so may a passphrase: taken as values all the same.
            #expect(
                try RouteSealer.open(blob, passphrase: "-Tour of Utrecht-", nonce: qr.nonce)
                    == Tracks([
                        [
                            Fix(latitude: 52.0907, longitude: 5.1214, altitude: 4.5, accuracy: 10, time: 1_764_000_000),
                            Fix(latitude: 52.0911, longitude: 5.1222, altitude: 4.9, accuracy: 10, time: 1_764_000_005),
                        ],
                        [Fix(latitude: 52.1, longitude: 5.2, altitude: 7, accuracy: 10, time: 1_764_003_600)],
                    ]))
            #expect(throws: RouteFormatError.cannotOpen) { try RouteSealer.open(blob, passphrase: "Tour of Utrecht", nonce: qr.nonce) }

            let wrongSecret = try await platform.custodian([
                "route", "upload", "--gpx", gpx, "--passphrase", "p", "--server", platform.baseURL, "--key", key, "--secret", "nope", "--insecure",
            ])
            #expect(wrongSecret.status != 0)
            #expect(wrongSecret.output.contains("the server refused the route: 401"), "\(wrongSecret.output)")
            let unreachable = try await platform.custodian([
                "route", "upload", "--gpx", gpx, "--passphrase", "p", "--server", "https://127.0.0.1:1", "--key", key, "--secret", secret,
            ])
            #expect(unreachable.status != 0)
            #expect(unreachable.output.contains("cannot reach https://127.0.0.1:1"), "\(unreachable.output)")
        }

        static let gpx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="custodian tests" xmlns="http://www.topografix.com/GPX/1/1">
              <trk><name>Utrecht</name>
                <trkseg>
                  <trkpt lat="52.0907" lon="5.1214"><ele>4.5</ele><time>2025-11-24T16:00:00Z</time></trkpt>
                  <trkpt lat="52.0911" lon="5.1222"><ele>4.9</ele><time>2025-11-24T16:00:05Z</time></trkpt>
                  <trkpt lat="52.0912" lon="5.1230"><ele>5.0</ele></trkpt>
                </trkseg>
                <trkseg>
                  <trkpt lat="52.1" lon="5.2"><ele>7</ele><time>2025-11-24T17:00:00Z</time></trkpt>
                </trkseg>
              </trk>
            </gpx>
            """
    }
}

extension RunningPlatform {
    /// Runs a `custodian` subcommand and returns its exit status and output.
    func custodian(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, output: String) {
        try await Self.run(binaries + "/custodian", arguments, environment: environment)
    }

    /// Runs a program to completion and returns its exit status and output (stdout and stderr together).
    /// `environment` is added to this process's.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, output: String)
    {
        let result = try await CommandRunner.run(executable, arguments, environment: environment, together: true)
        return (result.status, result.stdout)
    }
}
