import Crypto
import CustodianLemon
import Foundation
import JWTKit
import LemonClient
import NIOHTTP1
import Testing

extension PlatformTests {
    /// The LEMON tracing app (docs/lemon.md) through the gateway with the client library: handshake, end-to-end
    /// encrypted calls to auth and statistics, lockout, revocation.
    @Suite("LEMON tracing app: handshake → auth, sealed payloads → statistics")
    struct Lemon {
        static func client() async throws -> LemonClient {
            let platform = try platform
            let keys = try await LemonClient.publishedKeys(baseURL: platform.baseURL, http: platform.http)
            return LemonClient(baseURL: platform.baseURL, http: platform.http, serverKey: try #require(keys.first))
        }

        static func json(_ text: String) -> Data { Data(text.utf8) }

        @Test func publishedKeysAreTheKeyFilesAndTheCommandLinePrintsThem() async throws {
            let platform = try platform
            let published = try await LemonClient.publishedKeys(baseURL: platform.baseURL, http: platform.http)
            let file = try ServerKeyFile(json: String(contentsOfFile: platform.dataDirectory + "/secrets/lemon-keys.json", encoding: .utf8))
            #expect(published == (try file.serverKeys().map(\.publicKey)))
            let printed = try await platform.custodian(["lemon", "keys", "show", "--file", platform.dataDirectory + "/secrets/lemon-keys.json"])
            #expect(printed.status == 0)
            #expect(try JSONDecoder().decode([ServerPublicKey].self, from: Data(printed.output.utf8)) == published)

            // From the server: its own certificate trusted with --ca-file, no --insecure needed; a certificate it does
            // not trust is explained, not a raw handshake failure.
            let fetched = try await platform.custodian([
                "lemon", "keys", "show", "--server", platform.baseURL, "--ca-file", platform.dataDirectory + "/tls/cert.pem",
            ])
            #expect(fetched.status == 0, "\(fetched.output)")
            #expect(try JSONDecoder().decode([ServerPublicKey].self, from: Data(fetched.output.utf8)) == published)
            let stranger = "/tmp/cit-stranger-\(UUID().uuidString.prefix(8)).pem"
            defer { try? FileManager.default.removeItem(atPath: stranger) }
            defer { try? FileManager.default.removeItem(atPath: stranger + ".key") }
            let made = try await RunningPlatform.run(
                "/usr/bin/openssl",
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=127.0.0.1", "-days", "1",
                    "-keyout", stranger + ".key", "-out", stranger,
                ])
            try #require(made.status == 0, "\(made.output)")
            let refused = try await platform.custodian(["lemon", "keys", "show", "--server", platform.baseURL, "--ca-file", stranger])
            #expect(refused.status != 0)
            #expect(
                refused.output.contains("presented a certificate this command does not trust") && refused.output.contains("--insecure"),
                "\(refused.output)")
        }

        /// The issue's "done when": one app's whole life.
        @Test func anAppsLife() async throws {
            let platform = try platform
            let client = try await Self.client()
            let app = LemonApp.generate()
            let pushToken = "push-\(UUID().uuidString)"

            // Register; the stored id is a hash, never the id.
            let registered = try await client.register(app, operatingSystem: "IOS", language: "en", pushToken: nil)
            #expect(registered.accessToken.split(separator: ".").count == 3)
            #expect(ISO8601DateFormatter().date(from: registered.accessTokenExpiry).map { $0 > Date() } == true)
            let appHash = SHA256.hash(data: Data(app.appId.utf8)).map { String(format: "%02x", $0) }.joined()
            #expect(try platform.sql("SELECT count(*) FROM auth.lemon_apps WHERE encode(app_id_hash, 'hex') = '\(appHash)'") == "1")
            #expect(try platform.rows(of: "auth.lemon_apps", holding: app.appId, in: "app_id_hash") == 0)

            // Authenticate again: a new session.
            let session = try await client.authenticate(app, language: "de")
            #expect(session.keys != registered.keys)

            // Symptoms, encrypted both ways, in German.
            let symptoms = try await client.call(.GET, "/api/v1/symptoms?language=de", session: session)
            #expect(symptoms.status == 200)
            #expect(symptoms.wasEncrypted)
            #expect(symptoms.envelope.success == true && symptoms.envelope.code == 200)
            let list = try #require(symptoms.envelope.data as? [[String: String]])
            #expect(list.count >= 12)
            #expect(list.allSatisfy { $0["key"]?.hasPrefix("question_positive_symptom-") == true && $0["value"]?.isEmpty == false })
            let english = try await client.call(.GET, "/api/v1/symptoms", session: session)
            let englishList = try #require(english.envelope.data as? [[String: String]])
            #expect(englishList.first { $0["key"] == "question_positive_symptom-1" }?["value"] == "Sore throat")
            #expect(list.first { $0["key"] == "question_positive_symptom-1" }?["value"] != "Sore throat")

            // A submission (the LEMON API's Recovered example; docs/lemon.md, "POST /api/v1/submission/covid"), retried: counted once.
            let survey = Self.json(
                #"{"Status":"Recovered","PositiveTestDate":"2020-03-29 13:00:09.1359267","NegativeTestDate":"2020-03-30 13:00:09.1359267","Country":"GB","Language":"EN","Age":25,"IsSymptomatic":false}"#
            )
            let submitted = try await client.call(.POST, "/api/v1/submission/covid", body: survey, session: session)
            #expect(submitted.status == 201, "\(submitted.envelope.message ?? "")")
            #expect(submitted.wasEncrypted && submitted.envelope.code == 201 && submitted.envelope.data == nil)
            let retried = try await client.call(.POST, "/api/v1/submission/covid", body: survey, session: session)
            #expect(retried.status == 201)
            let invalid = try await client.call(
                .POST, "/api/v1/submission/covid", body: Self.json(#"{"Status":"Recovered","Age":201}"#), session: session)
            #expect(invalid.status == 400 && invalid.wasEncrypted && invalid.envelope.success == false)
            #expect(invalid.envelope.message?.isEmpty == false)

            // Statistics for two countries and the world.
            let statistics = try await client.call(.GET, "/api/v1/statistics/covid/google?countries=ZA&countries=GB", session: session)
            #expect(statistics.status == 200, "\(statistics.envelope.message ?? "")")
            let global = try await client.call(.GET, "/api/v1/statistics/covid/google", session: session)
            #expect(global.status == 200)
            let badCountry = try await client.call(.GET, "/api/v1/statistics/covid/google?countries=XX", session: session)
            #expect(badCountry.status == 400 && badCountry.wasEncrypted)

            // Push token: set, idempotent for its owner, refused for another app, deleted.
            let setToken = try await client.call(
                .POST, "/api/v1/devices/push_token", body: Self.json(#"{"pushToken":"\#(pushToken)"}"#), session: session)
            #expect(setToken.status == 201 && setToken.envelope.code == 201)
            #expect(try platform.sql("SELECT count(*) FROM auth.lemon_apps WHERE push_token = '\(pushToken)'") == "1")
            let other = try await client.register(LemonApp.generate())
            let taken = try await client.call(.POST, "/api/v1/devices/push_token", body: Self.json(#"{"pushToken":"\#(pushToken)"}"#), session: other)
            #expect(taken.status == 401)
            #expect(taken.envelope.message == "Push token already exists in database")
            let cleared = try await client.call(.DELETE, "/api/v1/devices/push_token", session: session)
            #expect(cleared.status == 200)
            #expect(try platform.sql("SELECT count(*) FROM auth.lemon_apps WHERE push_token = '\(pushToken)'") == "0")

            // Delete: the token stops at once, and the app and its submissions are gone.
            let deviceId = try platform.sql("SELECT device_id FROM auth.lemon_apps WHERE encode(app_id_hash, 'hex') = '\(appHash)'")
            #expect(
                try platform.sql("SELECT count(*) FROM statistics.submissions WHERE device_sha256 = sha256(convert_to('\(deviceId)', 'UTF8'))") == "1"
            )
            let deleted = try await client.call(.DELETE, "/api/v1/devices", session: session)
            #expect(deleted.status == 200 && deleted.envelope.success == true)
            let afterDelete = try await client.call(.GET, "/api/v1/symptoms", session: session)
            #expect(afterDelete.status == 401 && !afterDelete.wasEncrypted)
            let otherSessionToo = try await client.call(.GET, "/api/v1/symptoms", session: registered)
            #expect(otherSessionToo.status == 401)
            #expect(try platform.sql("SELECT count(*) FROM auth.lemon_apps WHERE encode(app_id_hash, 'hex') = '\(appHash)'") == "0")
            #expect(
                try platform.sql("SELECT count(*) FROM statistics.submissions WHERE device_sha256 = sha256(convert_to('\(deviceId)', 'UTF8'))") == "0"
            )
            await #expect(throws: LemonClientError.refused(status: 401, message: "Unknown app instance")) {
                try await client.authenticate(app)
            }
        }

        @Test func aDeactivatedAppCannotAuthenticateAndItsTokenStops() async throws {
            let client = try await Self.client()
            let app = LemonApp.generate()
            let session = try await client.register(app)
            let badStatus = try await client.call(.POST, "/api/v1/devices/active?status=maybe", session: session)
            #expect(badStatus.status == 400 && badStatus.wasEncrypted)
            #expect(badStatus.envelope.message == "Invalid status value: status must be true or false")
            let stillActive = try await client.call(.POST, "/api/v1/devices/active?status=true", session: session)
            #expect(stillActive.status == 200)
            let deactivated = try await client.call(.POST, "/api/v1/devices/active?status=false", session: session)
            #expect(deactivated.status == 200 && deactivated.envelope.data == nil)
            let afterwards = try await client.call(.GET, "/api/v1/symptoms", session: session)
            #expect(afterwards.status == 401)
            await #expect(throws: LemonClientError.refused(status: 401, message: "App is deactivated")) {
                try await client.authenticate(app)
            }
        }

        @Test func threeBadSignaturesLockTheAppForTenMinutes() async throws {
            let platform = try platform
            let client = try await Self.client()
            let app = LemonApp.generate()
            _ = try await client.register(app)
            let impostor = LemonApp(appId: app.appId, privateKey: P256.Signing.PrivateKey())
            for _ in 1...3 {
                await #expect(throws: LemonClientError.refused(status: 401, message: "Signature verification failed")) {
                    try await client.authenticate(impostor)
                }
            }
            // Now even the right key is refused, from any replica: the lock is in PostgreSQL.
            await #expect(throws: LemonClientError.refused(status: 401, message: "App is locked-out")) {
                try await client.authenticate(app)
            }
            let appHash = SHA256.hash(data: Data(app.appId.utf8)).map { String(format: "%02x", $0) }.joined()
            let minutes = try platform.sql(
                "SELECT round(extract(epoch FROM locked_until - now()) / 60) FROM auth.lemon_apps WHERE encode(app_id_hash, 'hex') = '\(appHash)'")
            #expect(minutes == "10")
            // When the ten minutes are over, the owner gets in again.
            _ = try platform.sql(
                "UPDATE auth.lemon_apps SET locked_until = now() - interval '1 second' WHERE encode(app_id_hash, 'hex') = '\(appHash)'")
            _ = try await client.authenticate(app)
        }

        @Test func countriesAndLanguagesComeSealedAndRefuseUnknownCodes() async throws {
            let client = try await Self.client()
            let session = try await client.register(LemonApp.generate())
            let countries = try await client.call(.GET, "/api/v1/countries", session: session)
            #expect(countries.status == 200 && countries.wasEncrypted)
            let all = try #require(countries.envelope.data as? [[String: String]])
            #expect(all.contains { $0["Alpha2"] == "ZA" && $0["Name"] == "South Africa" })
            let one = try await client.call(.GET, "/api/v1/countries?country=za", session: session)
            #expect((one.envelope.data as? [String: String])?["Alpha2"] == "ZA")
            let german = try await client.call(.GET, "/api/v1/languages?language=de", session: session)
            #expect((german.envelope.data as? [String: String])?["Name"] == "German")
            for path in ["/api/v1/countries?country=XX", "/api/v1/languages?language=xx", "/api/v1/symptoms?language=english"] {
                let refused = try await client.call(.GET, path, session: session)
                #expect(refused.status == 400, "\(path)")
                #expect(refused.wasEncrypted && refused.envelope.success == false && refused.envelope.code == 400)
                #expect(refused.envelope.message?.contains("lpha2") == true, "\(path): \(refused.envelope.message ?? "")")
            }
        }

        @Test func sessionsADayOverLeaveWithTheirIVs() async throws {
            let platform = try platform
            let client = try await Self.client()
            let session = try await client.register(LemonApp.generate())
            let used = try await client.call(
                .POST, "/api/v1/devices/push_token", body: Self.json(#"{"pushToken":"push-token-old-\#(UUID().uuidString)"}"#), session: session)
            #expect(used.status == 201)
            let sid = try #require(try Self.claims(session.accessToken)["sid"] as? String)
            #expect(try platform.sql("SELECT count(*) FROM auth.lemon_payload_ivs WHERE session_id = '\(sid)'") == "1")
            _ = try platform.sql("UPDATE auth.lemon_sessions SET expires_at = now() - interval '2 days' WHERE id = '\(sid)'")
            _ = try await client.register(LemonApp.generate())  // any app's handshake sweeps
            #expect(try platform.sql("SELECT count(*) FROM auth.lemon_sessions WHERE id = '\(sid)'") == "0")
            #expect(try platform.sql("SELECT count(*) FROM auth.lemon_payload_ivs WHERE session_id = '\(sid)'") == "0")
        }

        static func claims(_ token: String) throws -> [String: Any] {
            let parts = token.split(separator: ".").map(String.init)
            return try #require(try JSONSerialization.jsonObject(with: base64URL(parts[1])) as? [String: Any])
        }

        @Test func handshakeErrorsFollowTheDocument() async throws {
            let platform = try platform
            let client = try await Self.client()
            let app = LemonApp.generate()
            let builder = try HandshakeBuilder(serverKey: client.serverKey)
            let good = try builder.registration(app: app, operatingSystem: "Android", language: "en", pushToken: nil)
            func refused(_ body: [String: String]) async -> (Int, String)? {
                do {
                    _ = try await client.handshake(builder, body: body)
                    return nil
                } catch LemonClientError.refused(let status, let message) {
                    return (status, message)
                } catch {
                    return (0, "\(error)")
                }
            }
            func altered(_ change: (inout [String: String]) -> Void) -> [String: String] {
                var body = good
                change(&body)
                return body
            }
            #expect(await refused(altered { $0["AppId"] = nil }).map { "\($0.0) \($0.1)" } == "400 Invalid Hashed App Instance ID")
            #expect(await refused(altered { $0["AppId"] = "short" }).map { "\($0.0) \($0.1)" } == "400 Invalid Hashed App Instance ID")
            #expect(await refused(altered { $0["Signature"] = nil }).map { "\($0.0) \($0.1)" } == "400 Missing digital signature")
            #expect(await refused(altered { $0["Seed"] = "c2hvcnQ=" }).map { "\($0.0) \($0.1)" } == "400 Invalid seed")
            #expect(await refused(altered { $0["Language"] = "xx" }).map { "\($0.0) \($0.1)" } == "400 Invalid alpha2 (language)")
            #expect(
                await refused(altered { $0["PushToken"] = "abc" }).map { "\($0.0) \($0.1)" }
                    == "400 Invalid push token: Token is less than 5 characters long")
            #expect(await refused(altered { $0["PublicKey"] = "bm90IGEga2V5" }).map { "\($0.0) \($0.1)" } == "401 Invalid public key")
            #expect(
                await refused(altered { $0["PreMasterSecret"] = Data(repeating: 7, count: 384).base64EncodedString() }).map { "\($0.0) \($0.1)" }
                    == "401 Invalid pre-master-secret")
            #expect(await refused(altered { $0["Signature"] = "bm8=" }).map { "\($0.0) \($0.1)" } == "401 Invalid signature")
            #expect(
                await refused(altered { $0["Language"] = "de" }).map { "\($0.0) \($0.1)" }
                    == "401 Signature verification fails (does not match provided public key)")
            // Nothing was stored by any of those.
            let appHash = SHA256.hash(data: Data(app.appId.utf8)).map { String(format: "%02x", $0) }.joined()
            #expect(try platform.sql("SELECT count(*) FROM auth.lemon_apps WHERE encode(app_id_hash, 'hex') = '\(appHash)'") == "0")

            // Keys match case-insensitively.
            let lowercased = Dictionary(uniqueKeysWithValues: good.map { ($0.key.lowercased(), $0.value) })
            _ = try await client.handshake(builder, body: lowercased)
            #expect(await refused(good).map { "\($0.0) \($0.1)" } == "401 Hashed App Instance ID already exists in database")
            let authentication = try HandshakeBuilder(serverKey: client.serverKey)
            var withPushToken = try authentication.authentication(app: app, language: nil)
            withPushToken["PushToken"] = "push-token-12345"
            do {
                _ = try await client.handshake(authentication, body: withPushToken)
                Issue.record("an authentication with a push token was accepted")
            } catch let error as LemonClientError {
                #expect(error == .refused(status: 401, message: "Push token, public key or operating system was included in the call"))
            }
        }

        @Test func tamperedAndReplayedPayloadsNeverReachTheService() async throws {
            let platform = try platform
            let client = try await Self.client()
            let session = try await client.register(LemonApp.generate())
            let body = Self.json(#"{"pushToken":"push-token-tamper-\#(UUID().uuidString)"}"#)
            func post(_ payload: String) async throws -> LemonReply {
                let reply = try await LemonClient.send(
                    http: platform.http, url: platform.baseURL + "/api/v1/devices/push_token", method: .POST,
                    headers: [("Authorization", "Bearer \(session.accessToken)")], body: Data(payload.utf8))
                return try LemonReply(status: reply.status, body: reply.body, keys: session.keys)
            }
            let sealed = EncryptedPayload.seal(body, keys: session.keys)
            var bytes = sealed.bytes
            bytes[20] ^= 1
            for (payload, message) in [
                (Data(bytes).base64EncodedString(), "The payload's MAC does not match"),
                ("%%% not base64 %%%", "The payload is not base64"),
                (Data(sealed.bytes.prefix(70)).base64EncodedString(), "The payload has the wrong length"),
                (
                    EncryptedPayload.seal(
                        body, keys: SessionKeys(encryption: Array(repeating: 1, count: 32), authentication: Array(repeating: 2, count: 32))
                    ).base64,
                    "The payload's MAC does not match"
                ),
            ] {
                let reply = try await post(payload)
                #expect(reply.status == 400)
                #expect(!reply.wasEncrypted)
                #expect(reply.envelope.message == message)
            }
            // A padding error under a correct MAC (only a key holder makes one): still a 400.
            var broken = sealed.ciphertext
            broken[broken.count - 1] ^= 0xff
            let badPadding = Data(sealed.iv + broken + EncryptedPayload.macForTesting(iv: sealed.iv, ciphertext: broken, keys: session.keys))
                .base64EncodedString()
            let padding = try await post(badPadding)
            #expect(padding.envelope.message == "The payload's padding is invalid", "\(padding.status): \(padding.envelope.message ?? "")")
            #expect(try platform.sql("SELECT count(*) FROM auth.lemon_apps WHERE push_token LIKE 'push-token-tamper-%'") == "0")

            // The genuine payload works once; the same bytes again are a replay.
            let first = try await post(sealed.base64)
            #expect(first.status == 201 && first.wasEncrypted, "\(first.status): \(first.envelope.message ?? "")")
            let replayed = try await post(sealed.base64)
            #expect(replayed.status == 400)
            #expect(replayed.envelope.message == "The payload was already received (replayed IV)")
            // A JSON-quoted payload is the same payload.
            let quoted = EncryptedPayload.seal(Self.json(#"{"pushToken":"push-token-quoted-\#(UUID().uuidString)"}"#), keys: session.keys)
            #expect(try await post("\"\(quoted.base64)\"").status == 201)
            // Plaintext JSON on an encrypted route is refused.
            #expect(try await post(#"{"pushToken":"push-token-plain"}"#).status == 400)
        }

        /// Found by an app developer checking docs/lemon.md against the original LEMON API: each answer as docs/lemon.md says.
        @Test func answersMatchTheDocumentForEdgeCases() async throws {
            let platform = try platform
            let client = try await Self.client()
            let session = try await client.register(LemonApp.generate())

            // The 16 KiB limit is the plaintext's: 17 KB of survey sealed fits the 24 KiB body but is a sealed 413.
            let padding = String(repeating: "a", count: 17 * 1024)
            let large = try await client.call(
                .POST, "/api/v1/submission/covid", body: Self.json(#"{"Status":"Negative","Pad":"\#(padding)"}"#), session: session)
            #expect(large.status == 413 && large.wasEncrypted)
            #expect(large.envelope.message == "The request body exceeds 16384 bytes")
            let justUnder = String(repeating: "a", count: 16 * 1024 - 40)
            let fits = try await client.call(
                .POST, "/api/v1/submission/covid", body: Self.json(#"{"Status":"Negative","Pad":"\#(justUnder)"}"#), session: session)
            #expect(
                fits.status == 400 && fits.envelope.message == "Invalid message structure for specified status: unknown field 'Pad'",
                "\(fits.envelope.message ?? "")")

            // Every token problem says "Missing or Invalid JWT", as the LEMON API did (docs/lemon.md, "End-to-end payloads").
            for (headers, message) in [
                ([(String, String)](), "Missing or Invalid JWT"),
                ([("Authorization", "Basic YTpi")], "Missing or Invalid JWT: Authorization must be a Bearer token"),
                ([("Authorization", "Bearer not.a.jwt")], "Missing or Invalid JWT: the access token is invalid or expired"),
            ] {
                let reply = try await platform.request(.GET, "/api/v1/symptoms", headers: headers)
                #expect(reply.status == 401)
                #expect(reply.json.flatMap { $0["meta"] as? [String: Any] }?["message"] as? String == message)
            }

            // A handshake body that is not JSON is answered as the handshake's table says.
            let notJSON = try await platform.request(.POST, "/api/v1/devices", rawBody: Data("AppId=1".utf8))
            #expect(notJSON.status == 400)
            #expect(notJSON.json.flatMap { $0["meta"] as? [String: Any] }?["message"] as? String == "The request body is not valid JSON")

            // A deleted app's token with a tampered payload: the session's end comes first, as documented.
            let doomed = try await client.register(LemonApp.generate())
            #expect(try await client.call(.DELETE, "/api/v1/devices", session: doomed).status == 200)
            var bytes = EncryptedPayload.seal(Self.json(#"{"pushToken":"push-token-after-delete"}"#), keys: doomed.keys).bytes
            bytes[20] ^= 1
            let tampered = try await LemonClient.send(
                http: platform.http, url: platform.baseURL + "/api/v1/devices/push_token", method: .POST,
                headers: [("Authorization", "Bearer \(doomed.accessToken)")], body: Data(Data(bytes).base64EncodedString().utf8))
            let answer = try LemonReply(status: tampered.status, body: tampered.body, keys: doomed.keys)
            #expect(answer.status == 401 && !answer.wasEncrypted)
            #expect(answer.envelope.message == "Missing or Invalid JWT: the session has ended")
            let garbled = try await LemonClient.send(
                http: platform.http, url: platform.baseURL + "/api/v1/devices/push_token", method: .POST,
                headers: [("Authorization", "Bearer \(doomed.accessToken)")], body: Data("%%% not base64 %%%".utf8))
            #expect(garbled.status == 401)
        }

        @Test func forgedAndExpiredTokensAreRefused() async throws {
            let platform = try platform
            let client = try await Self.client()
            let session = try await client.register(LemonApp.generate())
            let parts = session.accessToken.split(separator: ".").map(String.init)
            let header = try #require(try JSONSerialization.jsonObject(with: Self.base64URL(parts[0])) as? [String: Any])
            let claims = try #require(try JSONSerialization.jsonObject(with: Self.base64URL(parts[1])) as? [String: Any])
            let kid = try #require(header["kid"] as? String)
            let realKey = try ES256PrivateKey(pem: platform.signingKeyPEM(kid: kid))

            func token(signedBy key: ES256PrivateKey, changing change: (inout [String: Any]) -> Void) async throws -> String {
                var payload = claims
                change(&payload)
                let keys = JWTKeyCollection()
                await keys.add(ecdsa: key, kid: JWKIdentifier(string: kid))
                return try await keys.sign(RawClaims(json: try JSONSerialization.data(withJSONObject: payload)), kid: JWKIdentifier(string: kid))
            }
            let now = Date().timeIntervalSince1970
            let expired = try await token(signedBy: realKey) {
                $0["exp"] = now - 10; $0["iat"] = now - 3700; $0["nbf"] = now - 3700
            }
            let wrongAudience = try await token(signedBy: realKey) { $0["aud"] = ["another-api"] }
            let wrongKey = try await token(signedBy: ES256PrivateKey()) { _ in }
            let none = Self.base64URLText(Data(#"{"alg":"none","typ":"JWT","kid":"\#(kid)"}"#.utf8)) + "." + parts[1] + "."
            let control = try await token(signedBy: realKey) { _ in }
            for forged in [expired, wrongAudience, wrongKey, none] {
                let reply = try await client.call(
                    .GET, "/api/v1/symptoms", session: LemonSession(accessToken: forged, accessTokenExpiry: "", keys: session.keys))
                #expect(reply.status == 401)
                #expect(!reply.wasEncrypted)
                #expect(reply.envelope.success == false && reply.envelope.code == 401)
            }
            let missing = try await LemonClient.send(
                http: platform.http, url: platform.baseURL + "/api/v1/symptoms", method: .GET, headers: [], body: nil)
            #expect(missing.status == 401)
            // The re-signed original is accepted: the refusals above are the alterations' doing.
            let accepted = try await client.call(
                .GET, "/api/v1/symptoms", session: LemonSession(accessToken: control, accessTokenExpiry: "", keys: session.keys))
            #expect(accepted.status == 200, "\(accepted.envelope.message ?? "")")
        }

        static func base64URL(_ text: String) -> Data {
            var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while base64.count % 4 != 0 { base64 += "=" }
            return Data(base64Encoded: base64) ?? Data()
        }

        static func base64URLText(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(
                of: "=", with: "")
        }
    }
}

/// Claims re-signed as they are, for tests that alter one.
struct RawClaims: JWTPayload {
    private var fields: [String: JSONAny]

    init(json: Data) throws {
        fields = try JSONDecoder().decode([String: JSONAny].self, from: json)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(fields)
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

private enum JSONAny: Codable {
    case number(Double), string(String), array([String]), bool(Bool)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else {
            self = .array(try container.decode([String].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let value):
            if value == value.rounded() { try container.encode(Int64(value)) } else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        }
    }
}
