import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import CustodianRuntime
import Testing

extension PlatformTests {
    /// Admin identities with scopes, revocation and expiry at every gateway, and the audit log of their actions
    /// (docs/admin.md), through the real gateway and services.
    @Suite("Admin identities and the audit log")
    struct AdminAudit {
        /// A new identity made by the platform's owner token through the API: its token and id.
        static func identity(_ scope: String, label: String? = nil, expiresIn: Int? = nil) async throws -> (token: String, id: String) {
            let platform = try platform
            let expiry = expiresIn.map { #","expires_in":\#($0)"# } ?? ""
            let reply = try await platform.request(
                .POST, "/admin/v1/tokens", json: #"{"label":"\#(label ?? "\(scope) \(UUID().uuidString.prefix(6))")","scope":"\#(scope)"\#(expiry)}"#,
                admin: true)
            #expect(reply.status == 201, "\(reply.text)")
            let identity = try #require(reply.json?["identity"] as? [String: Any])
            return (try #require(reply.json?["token"] as? String), try #require(identity["id"] as? String))
        }

        static func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

        @Test func eachScopeIsAllowedItsRoutesAndRefusedTheOthersInTheRoutesStyle() async throws {
            let platform = try platform
            let researcher = try await Self.identity("researcher"), operatorToken = try await Self.identity("operator")
            // A researcher reads lists and exports …
            #expect(try await platform.request(.GET, "/admin/v1/accounts", headers: Self.bearer(researcher.token)).status == 200)
            #expect(try await platform.request(.GET, "/admin/v1/measurements?format=csv", headers: Self.bearer(researcher.token)).status == 200)
            // … but makes nothing: refused in the Twomes API's words on a Twomes route, the admin API's on its own.
            let account = try await platform.request(.POST, "/account", json: "{}", headers: Self.bearer(researcher.token))
            #expect(
                account.status == 403
                    && account.text == #"{"detail":"This needs the operator scope; this identity has the researcher scope"}"# + "\n",
                "\(account.text)")
            let consumer = try await platform.request(
                .POST, "/admin/v1/api-consumers", json: #"{"name":"refused"}"#, headers: Self.bearer(researcher.token))
            #expect(consumer.status == 403 && consumer.text.contains(#""reason":"insufficient_scope""#), "\(consumer.text)")
            // An operator makes things, but neither recovers keys, nor manages tokens, nor reads the audit log.
            #expect(try await platform.request(.POST, "/account", json: "{}", headers: Self.bearer(operatorToken.token)).status == 200)
            for path in ["/admin/v1/tokens", "/admin/v1/audit", "/admin/v1/opensense/devices/1/key"] {
                let refused = try await platform.request(.GET, path, headers: Self.bearer(operatorToken.token))
                #expect(refused.status == 403 && refused.text.contains("needs the owner scope"), "\(path): \(refused.text)")
            }
            // The owner does all of it.
            #expect(try await platform.request(.GET, "/admin/v1/audit?limit=1", admin: true).status == 200)
            #expect(try await platform.request(.GET, "/admin/v1/tokens", admin: true).status == 200)
        }

        /// Bad input to the identity and audit routes: a 4xx in the admin API's error shape, never a 500, and nothing made.
        @Test(
            arguments: [
                ("POST", "/admin/v1/tokens", #"{"label":"refused-bad-input","scope":"emperor"}"#, 422),
                ("POST", "/admin/v1/tokens", #"{"scope":"owner"}"#, 422),
                ("POST", "/admin/v1/tokens", #"{"label":"refused-bad-input","scope":"owner","expires_in":0}"#, 422),
                ("POST", "/admin/v1/tokens", #"{"label":"refused-bad-input","scope":"owner","expires_in":1e300}"#, 422),
                ("POST", "/admin/v1/tokens", #"{"label":"refused-bad-input","scope":"owner","expires_in":99999999999999999999}"#, 422),
                ("POST", "/admin/v1/tokens", #"{"label":"refused-bad-input","scope":"owner","expires_in":"soon"}"#, 422),
                ("POST", "/admin/v1/tokens", #"[1,2]"#, 422),
                ("POST", "/admin/v1/tokens", #"{"label":"#, 400),
                ("DELETE", "/admin/v1/tokens/not-an-id", nil, 404),
                ("DELETE", "/admin/v1/tokens/99999999999999999999999", nil, 404),
                ("GET", "/admin/v1/audit?limit=0", nil, 400),
                ("GET", "/admin/v1/audit?limit=99999999999999999999", nil, 400),
                ("GET", "/admin/v1/audit?after=-1", nil, 400),
                ("GET", "/admin/v1/audit?from=yesterday", nil, 400),
                ("GET", "/admin/v1/audit?format=xml", nil, 400),
            ] as [(String, String, String?, Int)])
        func badInputIsRefusedInTheAdminAPIsShape(method: String, path: String, body: String?, status: Int) async throws {
            let platform = try platform
            let reply = try await platform.request(HTTPMethod(rawValue: method), path, json: body, admin: true)
            #expect(reply.status / 100 == 4 && reply.status == status, "\(method) \(path): \(reply.status) \(reply.text)")
            let error = reply.json?["error"] as? [String: Any]
            #expect(error?["reason"] is String && error?["message"] is String, "\(reply.text)")
            // Other tests make tokens meanwhile; none of these may have made one.
            #expect(try platform.sql("SELECT count(*) FROM auth.admin_tokens WHERE label = 'refused-bad-input'") == "0")
        }

        /// Asks both gateways with `token` until each refuses it, and returns, per gateway, how long after `since` the last
        /// request it still accepted was sent (zero when it accepted none). The token "stops working within a second" when
        /// no request sent a second or more after `since` is accepted; when a refused request was sent does not matter,
        /// since on a loaded machine one slow answer delays the next request.
        static func acceptedUntil(_ token: String, _ second: SecondGateway, since: ContinuousClock.Instant) async throws -> [Duration] {
            let platform = try platform
            var accepted: [Duration] = [.zero, .zero]
            var refused = [false, false]
            while refused.contains(false) && ContinuousClock.now - since < .seconds(10) {
                for gateway in 0..<2 where !refused[gateway] {
                    let sent = ContinuousClock.now
                    let status =
                        gateway == 0
                        ? try await platform.request(.GET, "/admin/v1/accounts?limit=1", headers: bearer(token)).status
                        : try await second.status("/admin/v1/accounts?limit=1", token: token, platform: platform)
                    if status == 401 { refused[gateway] = true } else { accepted[gateway] = max(.zero, sent - since) }
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            return zip(accepted, refused).map { $1 ? $0 : .seconds(10) }
        }

        @Test func revocationAndExpiryTakeEffectAtTwoGatewaysWithinASecond() async throws {
            let platform = try platform
            let second = try await SecondGateway(platform)
            defer { second.stop() }
            let revoked = try await Self.identity("researcher")
            #expect(try await platform.request(.GET, "/admin/v1/accounts?limit=1", headers: Self.bearer(revoked.token)).status == 200)
            #expect(try await second.status("/admin/v1/accounts?limit=1", token: revoked.token, platform: platform) == 200)
            // Revoked through one gateway: refused by both within a second.
            #expect(try await platform.request(.DELETE, "/admin/v1/tokens/\(revoked.id)", admin: true).status == 200)
            let afterRevocation = try await Self.acceptedUntil(revoked.token, second, since: ContinuousClock.now)
            #expect(afterRevocation.allSatisfy { $0 < .seconds(1) }, "accepted by the gateways until \(afterRevocation) after the revocation")

            let expiring = try await Self.identity("researcher", expiresIn: 5)
            let created = ContinuousClock.now
            #expect(try await second.status("/admin/v1/accounts?limit=1", token: expiring.token, platform: platform) == 200)
            try await Task.sleep(until: created + .seconds(5))
            let afterExpiry = try await Self.acceptedUntil(expiring.token, second, since: created + .seconds(5))
            #expect(afterExpiry.allSatisfy { $0 < .seconds(1) }, "accepted by the gateways until \(afterExpiry) after the expiry")
        }

        /// Every audited action leaves a `begin` and an `end` entry with the identity, the targets and, for reads, the counts.
        @Test func eachAuditedActionIsFoundWithItsIdentityTargetAndCounts() async throws {
            let platform = try platform
            let operatorIdentity = try await Self.identity("operator", label: "audit operator \(UUID().uuidString.prefix(6))")
            let researcherIdentity = try await Self.identity("researcher", label: "audit researcher \(UUID().uuidString.prefix(6))")
            let account = try await platform.request(.POST, "/account", json: "{}", headers: Self.bearer(operatorIdentity.token))
            let pseudonym = try #require(account.json?["pseudonym"] as? Int)
            let export = try await platform.request(
                .GET, "/admin/v1/measurements?format=ndjson&pseudonym=\(pseudonym)", headers: Self.bearer(researcherIdentity.token))
            #expect(export.status == 200)
            let key = try await platform.request(.GET, "/admin/v1/opensense/devices/424242/key", admin: true)
            let revoke = try await platform.request(.DELETE, "/admin/v1/tokens/\(researcherIdentity.id)", admin: true)
            #expect(revoke.status == 200)

            func entries(_ query: String) async throws -> [[String: Any]] {
                let reply = try await platform.request(.GET, "/admin/v1/audit?\(query)", admin: true)
                #expect(reply.status == 200, "\(reply.text)")
                return reply.json?["entries"] as? [[String: Any]] ?? []
            }
            // Who exported this participant's data, and who made the account: found from the pseudonym.
            let history = try await entries("target=\(pseudonym)")
            let made = history.filter { $0["action"] as? String == "POST /account" }
            #expect(made.map { $0["phase"] as? String } == ["end"], "the account's pseudonym is known once it is made: \(history)")
            #expect(made.first?["identity"] as? String == operatorIdentity.id && made.first?["status"] as? Int == 200)
            let exported = history.filter { $0["action"] as? String == "GET /admin/v1/measurements" }
            #expect(exported.map { $0["phase"] as? String } == ["begin", "end"])
            let end = try #require(exported.last)
            #expect(end["identity"] as? String == researcherIdentity.id && (end["identity_label"] as? String)?.hasPrefix("audit researcher") == true)
            #expect(end["query"] as? String == "format=ndjson&pseudonym=\(pseudonym)" && end["scope"] as? String == "researcher")
            #expect(end["rows"] as? Int == 0 && end["bytes"] as? Int == export.body.count)
            // Key recovery, refused or not, is on record with its device; so is the revocation.
            let recoveries = try await entries("action=GET%20/admin/v1/opensense/devices/%7Bdevice_id%7D/key&target=424242")
            #expect(recoveries.last?["status"] as? Int == key.status && recoveries.count == 2)
            let revocations = try await entries("target=\(researcherIdentity.id)&action=DELETE%20/admin/v1/tokens/%7Btoken_id%7D")
            #expect(revocations.count == 2 && revocations.last?["status"] as? Int == 200)
            // A label print names its device and counts its bytes; the command line's revocation is on record as `cli`.
            let device = try await PlatformTests.TwomesProvisioning.provision()
            let label = try await platform.request(.GET, "/admin/v1/devices/\(device.deviceName)/label", headers: Self.bearer(operatorIdentity.token))
            #expect(label.status == 200)
            let printed = try await entries("target=\(device.deviceName)&action=GET%20/admin/v1/devices/%7Bdevice_name%7D/label")
            #expect(printed.last?["bytes"] as? Int == label.body.count && printed.last?["identity"] as? String == operatorIdentity.id, "\(printed)")
            let cliRevoked = try await platform.custodian(["admin", "revoke-token", operatorIdentity.id, "--data-dir", platform.dataDirectory])
            #expect(cliRevoked.status == 0, "\(cliRevoked.output)")
            let byCommand = try await entries("target=\(operatorIdentity.id)&action=custodian%20admin%20revoke-token")
            #expect(byCommand.map { $0["identity"] as? String } == ["cli", "cli"] && byCommand.last?["status"] as? Int == 200, "\(byCommand)")
            // An identity's actions, by its label; the audit log itself holds no token.
            #expect(try await entries("identity=\(operatorIdentity.id)").contains { $0["action"] as? String == "POST /account" })
            let csv = try await platform.request(.GET, "/admin/v1/audit?format=csv&target=\(pseudonym)", admin: true)
            #expect(csv.status == 200 && csv.text.hasPrefix("seq,at,phase,identity,") && csv.text.contains("POST /account"))
            #expect(try platform.sql("SELECT count(*) FROM audit.entries e WHERE strpos(e::text, '\(operatorIdentity.token)') > 0") == "0")
            // The gateway's log line of an admin request names the identity, never the token.
            let gatewayLog = (try? String(contentsOfFile: platform.dataDirectory + "/logs/gateway.log", encoding: .utf8)) ?? ""
            #expect(
                gatewayLog.contains("admin=\"\(operatorIdentity.id)") || gatewayLog.contains(operatorIdentity.id), "no identity in the gateway's log")
            #expect(!gatewayLog.contains(operatorIdentity.token) && !gatewayLog.contains(platform.adminToken))
        }

        /// `custodian audit verify` on a copy of the platform's log, tampered with as the database's owner.
        @Test func verifyNamesTheFirstBrokenEntryAndACutTail() async throws {
            let platform = try platform
            let second = try await SecondGateway(platform)
            defer { second.stop() }
            for _ in 0..<3 { #expect(try await platform.request(.GET, "/admin/v1/accounts?limit=1", admin: true).status == 200) }
            let current = Int(try platform.sql("SELECT max(seq) FROM audit.entries")) ?? 0
            let head = try await second.publishedHead(atLeast: current, platform: platform)
            for _ in 0..<2 { #expect(try await platform.request(.GET, "/admin/v1/accounts?limit=1", admin: true).status == 200) }

            func verify(_ url: String, heads: [String] = []) async throws -> (status: Int32, output: String) {
                try await platform.custodian(["audit", "verify", "--database-url", url] + heads.flatMap { ["--head", $0] })
            }
            let intact = try await verify(try platform.adminDatabaseURL, heads: ["\(head.seq):\(head.hash)"])
            #expect(intact.status == 0 && intact.output.contains("audit log intact"), "\(intact.output)")

            let n = head.seq - 1
            for (statement, expected) in [
                ("UPDATE audit.entries SET targets = ARRAY['801186'] WHERE seq = \(n)", "audit log broken at entry \(n): entry \(n) was altered"),
                ("DELETE FROM audit.entries WHERE seq = \(n)", "audit log broken at entry \(n): entry \(n) is missing"),
                (
                    "UPDATE audit.entries e SET (at_micros, phase, identity, identity_label, scope, action, targets, query, request_id, status, rows, bytes, previous_hash, hash) = (SELECT at_micros, phase, identity, identity_label, scope, action, targets, query, request_id, status, rows, bytes, previous_hash, hash FROM audit.entries o WHERE o.seq = \(2 * n + 1) - e.seq) WHERE e.seq IN (\(n), \(n + 1))",
                    "audit log broken at entry \(n): entry \(n) was altered"
                ),
                ("UPDATE audit.entries SET hash = sha256(hash) WHERE seq = \(n)", "audit log broken at entry \(n)"),
            ] {
                let copy = try platform.copyOfAuditLog()
                #expect(try await verify(copy).status == 0)
                _ = try platform.sql(statement, in: copy)
                let broken = try await verify(copy)
                #expect(broken.status == 1 && broken.output.contains(expected), "\(statement): \(broken.output)")
            }
            // The tail cut: what is left is a whole chain, which only the earlier head shows to be short.
            let copy = try platform.copyOfAuditLog()
            _ = try platform.sql("DELETE FROM audit.entries WHERE seq >= \(head.seq)", in: copy)
            #expect(try await verify(copy).status == 0)
            let cut = try await verify(copy, heads: ["\(head.seq):\(head.hash)"])
            #expect(cut.status == 1 && cut.output.contains("before the published head \(head.seq):\(head.hash): its tail was cut"), "\(cut.output)")
        }
    }
}
