import AsyncHTTPClient
import CustodianContracts
import CustodianRPC
import Foundation
import JWTKit
import Logging
import ProcessTestSupport
import Testing

extension OneAtATime {
    /// Issue 27: the access tokens' signing key rotated on a running platform, with two `auth` replicas and two gateways,
    /// while the load generator's apps and vault users keep calling with tokens of both keys (docs/operations.md,
    /// "Rotating the JWT signing key"). The key set's max age is 2 s here instead of a minute, so the new key signs 4 s
    /// after it is published.
    @Suite(
        "Rotating the JWT signing key", .serialized,
        .runningPlatform(settings: ["CUSTODIAN_RATE_LIMITS": "off", "CUSTODIAN_REPLICAS": "auth=2", "CUSTODIAN_JWT_KEY_SET_MAX_AGE": "2s"]))
    struct JWTKeyRotationTests {
        static let maxAge: Duration = .seconds(2)

        static func kid(of token: String) throws -> String {
            let header = try JSONSerialization.jsonObject(with: PlatformTests.Lemon.base64URL(String(token.prefix { $0 != "." })))
            return try #require((header as? [String: Any])?["kid"] as? String, "\(token)")
        }

        /// A vault user's login at each `auth` replica, asked on its own socket: the kid each signs with now.
        static func tokensOfEachReplica(_ user: PlatformTests.Vault.Account) async throws -> [String] {
            let platform = try platform
            var tokens: [String] = []
            for instance in ["auth-1", "auth-2"] {
                let client = RPCClient(
                    services: ["auth": .endpoints([.unix(path: "\(platform.dataDirectory)/run/auth/\(instance).sock")])],
                    logger: Logger(label: "jwt-rotation-tests"))
                defer { client.shutdown() }
                let context = CallContext(requestID: "rotation-\(UUID().uuidString.lowercased())", deadline: Date().addingTimeInterval(30))
                let login = OAuthTokenRequest(grant: .password(email: user.email, password: user.password))
                tokens.append(try await client.call(AuthMethods.oauthToken.typed, input: login, context: context).access_token)
            }
            return tokens
        }

        /// What a vault route answers `token` at the platform's gateway and at the second one.
        static func answers(_ token: String, _ second: SecondGateway) async throws -> [RunningPlatform.Reply] {
            let platform = try platform
            let headers = PlatformTests.Vault.bearer(token)
            let first = try await platform.request(.GET, "/api/modules/index", headers: headers)
            var request = HTTPClientRequest(url: second.baseURL + "/api/modules/index")
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            let response = try await platform.http.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 1 << 20)
            return [first, RunningPlatform.Reply(status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView))]
        }

        /// `custodian rotate jwt-key …` against the platform, its output and errors apart.
        static func rotate(_ arguments: [String], token: String? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
            let platform = try platform
            return try await CommandRunner.run(
                platform.binaries + "/custodian",
                ["rotate", "jwt-key"] + arguments + [
                    "--server", platform.baseURL, "--token", token ?? platform.adminToken, "--ca-file", platform.dataDirectory + "/tls/cert.pem",
                ], together: false)
        }

        /// A token like `model` signed with the key `kid` as `auth` would sign it: made here from the sealed private key.
        static func token(like model: String, signedWith kid: String) async throws -> String {
            let keys = JWTKeyCollection()
            await keys.add(ecdsa: try ES256PrivateKey(pem: try platform.signingKeyPEM(kid: kid)), kid: JWKIdentifier(string: kid))
            let payload = PlatformTests.Lemon.base64URL(String(model.split(separator: ".")[1]))
            return try await keys.sign(try RawClaims(json: payload), kid: JWKIdentifier(string: kid))
        }

        /// Sends `token` to both gateways until each answers `status`; how long after `since` each first did.
        static func untilBothAnswer(
            _ status: Int, _ token: String, _ second: SecondGateway, since: ContinuousClock.Instant
        ) async throws
            -> [Duration?]
        {
            var after: [Duration?] = [nil, nil]
            while after.contains(nil) && ContinuousClock.now - since < .seconds(30) {
                for (gateway, reply) in try await answers(token, second).enumerated() where after[gateway] == nil && reply.status == status {
                    after[gateway] = ContinuousClock.now - since
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            return after
        }

        @Test func aNewKeySignsEverywhereWhileOldTokensVerifyUntilTheOldKeyIsRetired() async throws {
            let platform = try platform
            let second = try await SecondGateway(platform)
            defer { second.stop() }
            let user = try await PlatformTests.Vault.newUser(name: "Rotation")
            let before = user.token
            let oldKid = try Self.kid(of: before)
            #expect(try await Self.answers(before, second).map(\.status) == [200, 200])

            // The load generator's apps and users log in before the rotation and keep their tokens through it.
            async let load = platform.loadgen(RunningPlatform.gentleLoad(for: "16s"))
            try await Task.sleep(for: .seconds(4))

            let rotated = try await Self.rotate([])
            let rotatedAt = ContinuousClock.now
            try #require(rotated.status == 0, "\(rotated.stderr)")
            let published = try JSONDecoder().decode(SigningKeyInfo.self, from: Data(rotated.stdout.utf8))
            #expect(published.state == .published && published.kid != oldKid)
            #expect(rotated.stderr.contains("custodian rotate jwt-key --retire \(oldKid)"), "\(rotated.stderr)")
            let signsFrom = try #require(ISO8601DateFormatter().date(from: published.signs_from))

            // Both gateways accept the new key before any replica signs with it.
            let forged = try await Self.token(like: before, signedWith: published.kid)
            let accepted = try await Self.untilBothAnswer(200, forged, second, since: rotatedAt)
            let acceptedBy = Date()
            #expect(!accepted.contains(nil) && acceptedBy < signsFrom, "accepted after \(accepted), the key signs from \(published.signs_from)")

            // Each auth replica signs with the new key from its time on, and not before.
            var switched: [Duration?] = [nil, nil]
            while switched.contains(nil) && ContinuousClock.now - rotatedAt < .seconds(30) {
                let asked = Date()
                for (replica, token) in try await Self.tokensOfEachReplica(user).enumerated() where switched[replica] == nil {
                    if try Self.kid(of: token) == published.kid {
                        switched[replica] = ContinuousClock.now - rotatedAt
                        #expect(Date() >= signsFrom.addingTimeInterval(-1), "replica \(replica + 1) signed with the new key before its time")
                    } else {
                        #expect(try Self.kid(of: token) == oldKid && asked < signsFrom.addingTimeInterval(1), "replica \(replica + 1)")
                    }
                }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(!switched.contains(nil), "the replicas signed with the new key after \(switched)")
            // Tokens of both keys verify at both gateways.
            for token in try await Self.tokensOfEachReplica(user) + [before] {
                #expect(try await Self.answers(token, second).map(\.status) == [200, 200])
            }

            let run = try await load
            #expect(run.status == 0, "\(run.output)")
            let report = try #require(run.report, "\(run.output)")
            #expect(report.total.errors == 0 && report.total.operations > 100, "\(report.total)")
            #expect(report.nothingLost, "\(report.verification)")

            // Retiring the old key is refused while its tokens may be valid; forced, the gateways refuse them within the max age,
            // with the API's own 401, and the new key's tokens go on working.
            let refused = try await Self.rotate(["--retire", oldKid])
            #expect(refused.status != 0 && refused.stderr.contains("(409)") && refused.stderr.contains("may be valid until"), "\(refused.stderr)")
            let forced = try await Self.rotate(["--retire", oldKid, "--force"])
            let retiredAt = ContinuousClock.now
            #expect(forced.status == 0 && forced.stderr.contains("retired key \(oldKid)"), "\(forced.stderr)")
            let refusedAfter = try await Self.untilBothAnswer(401, before, second, since: retiredAt)
            #expect(!refusedAfter.contains(nil) && refusedAfter.allSatisfy { $0! <= Self.maxAge * 3 }, "refused after \(refusedAfter)")
            // The same answer as a token whose signature does not match: the API's own refusal of a bad token.
            let badSignature = String(try await Self.token(like: before, signedWith: published.kid).dropLast(4)) + "AAAA"
            for (old, garbled) in zip(try await Self.answers(before, second), try await Self.answers(badSignature, second)) {
                #expect(old.status == 401 && old.text == garbled.text, "\(old.text)")
            }
            for token in try await Self.tokensOfEachReplica(user) {
                #expect(try await Self.answers(token, second).map(\.status) == [200, 200])
            }
            // Both were owners' actions, in the audit log with the key they concern.
            let audit = try await platform.request(.GET, "/admin/v1/audit?target=\(oldKid)", admin: true)
            let actions = (audit.json?["entries"] as? [[String: Any]] ?? []).compactMap { $0["action"] as? String }
            #expect(actions.filter { $0 == "DELETE /admin/v1/signing-keys/{kid}" }.count == 4, "\(actions)")

            print(
                "JWT key rotation: every gateway accepted the new key \(accepted.map { $0.map { "\($0)" } ?? "never" }) after it was published, every auth "
                    + "replica signed with it \(switched.map { $0.map { "\($0)" } ?? "never" }) after (it signs from 2 × the 2 s max age); forced retirement "
                    + "refused the old key's tokens after \(refusedAfter.map { $0.map { "\($0)" } ?? "never" }); loadgen: \(report.total.operations) requests, "
                    + "\(report.total.errors) errors, statuses \(report.total.statuses)")
        }

        @Test func badRequestsAreRefusedWithMessagesThatSayWhy() async throws {
            let platform = try platform
            let help = try await Self.rotate(["--help"])
            #expect(help.status == 0 && help.stdout.contains("--retire <kid>") && help.stdout.contains("--force"), "\(help)")
            for (arguments, message) in [
                (["--force"], "--force goes with --retire KID"),
                (["--list", "--retire", "abc"], "--list and --retire do not go together"),
                (["--retire", " "], "--retire needs a key's kid"),
            ] {
                let usage = try await Self.rotate(arguments)
                #expect(usage.status == 64 && usage.stderr.contains(message), "\(arguments): \(usage)")
            }
            let unknown = try await Self.rotate(["--retire", "00000000-0000-0000-0000-000000000000"])
            #expect(
                unknown.status == 1 && unknown.stderr.contains("(404): No signing key has the kid 00000000-0000-0000-0000-000000000000"),
                "\(unknown)")
            let list = try JSONDecoder().decode(SigningKeyList.self, from: Data(try await Self.rotate(["--list"]).stdout.utf8))
            let signing = try #require(list.keys.first { $0.state == .signing })
            let current = try await Self.rotate(["--retire", signing.kid, "--force"])
            #expect(
                current.status == 1 && current.stderr.contains("(409): Key \(signing.kid)") && current.stderr.contains("rotate first"), "\(current)")
            // Owners only.
            let created = try await platform.request(
                .POST, "/admin/v1/tokens", json: #"{"label":"rotation operator","scope":"operator"}"#, admin: true)
            let operatorToken = try #require(created.json?["token"] as? String, "\(created.text)")
            let notOwner = try await Self.rotate([], token: operatorToken)
            #expect(notOwner.status == 1 && notOwner.stderr.contains("(403): This needs the owner scope"), "\(notOwner)")
            let badForce = try await platform.request(.DELETE, "/admin/v1/signing-keys/\(signing.kid)?force=yes", admin: true)
            #expect(badForce.status == 400 && badForce.text.contains("force must be true or false"), "\(badForce.text)")
        }
    }
}
