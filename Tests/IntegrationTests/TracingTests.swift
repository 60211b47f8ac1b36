import CustodianLemon
import Foundation
import LemonClient
import NIOHTTP1
import Testing

/// Not inside `PlatformTests`, whose platform it does not use: it runs one of its own, which exports its spans.
enum TracingTests {
    /// One request, one trace (docs/operations.md, "Tracing"): the platform with two devices replicas exports its spans
    /// to a collector of the test's own, and each request a user makes arrives as one trace, gateway → service → SQL,
    /// with its parents right and no participant data in it; a collector that goes down costs only dropped spans.
    @Suite("Tracing: one request, one trace")
    struct Tracing {
        /// What the spans may not hold anywhere: the participants' identifiers, credentials and data.
        final class Secrets: @unchecked Sendable {
            var values: [String] = []
            func add(_ more: String...) { values += more.filter { $0.count >= 4 } }
        }

        @Test func eachRequestIsOneTraceAcrossServicesReplicasAndSQL() async throws {
            let receiver = try await OTLPReceiver.start()
            let platform = try await RunningPlatform.start(
                settings: RunningPlatform.defaultSettings.merging([
                    "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint,
                    // Export every 100 ms instead of every 5 s, so that the test does not wait.
                    "OTEL_BSP_SCHEDULE_DELAY": "100",
                    // A queue of 256 spans instead of 2,048, so that a slow collector fills it within a few requests.
                    "OTEL_BSP_MAX_QUEUE_SIZE": "256", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "128",
                ]) { _, new in new },
                arguments: ["--replicas", "devices=2"])
            var collector: OTLPReceiver? = receiver
            do {
                try await RunningPlatform.$current.withValue(platform) {
                    let secrets = Secrets()
                    secrets.add(platform.adminToken)
                    try await twomes(receiver, platform: platform, secrets: secrets)
                    try await vaultBatch(receiver, platform: platform, secrets: secrets)
                    try await lemonSubmission(receiver, platform: platform, secrets: secrets)
                    try await hostileTraceHeaders(receiver, platform: platform)
                    try checkNoParticipantData(in: receiver.spans(), secrets: secrets.values)
                    collector = nil
                    try await collectorDown(receiver, platform: platform)
                    try await collectorSlow(port: receiver.port, platform: platform)
                }
            } catch {
                await collector?.stop()
                try await platform.stop()
                throw error
            }
            try await platform.stop()
        }

        /// An account made by the researcher (devices → links: a service-to-service call), and a device's upload, whose
        /// answer's `traceparent` and `X-Request-Id` name the trace; the devices replica that served each call is in it.
        func twomes(_ receiver: OTLPReceiver, platform: RunningPlatform, secrets: Secrets) async throws {
            let account = try await platform.request(.POST, "/account", json: "{}", admin: true)
            #expect(account.status == 200 || account.status == 201, "\(account.text)")
            let accountTrace = try #require(Self.traceID(of: account))
            let made = try await receiver.trace(accountTrace) { spans in
                spans.call(of: "links.activation.mint", on: "links") != nil && spans.isWhole(rootedAt: "POST /account")
            }
            let create = try #require(made.call(of: "devices.account.create", on: "devices"), "\(made.tree)")
            let mint = try #require(made.call(of: "links.activation.mint", on: "links"), "\(made.tree)")
            #expect(made.descends(mint.client, from: create.server), "the links call is the devices method's child:\n\(made.tree)")
            #expect(!made.statements(under: mint.server).isEmpty, "links' SQL is in the trace:\n\(made.tree)")
            try Self.checkOneTree(made, route: "POST /account")
            if let pseudonym = account.json?["pseudonym"] as? Int { secrets.add("\(pseudonym)") }
            if let token = account.json?["activation_token"] as? String { secrets.add(token) }

            // Uploads from three devices, so that both devices replicas are likely to serve one.
            let instances = try FileManager.default.contentsOfDirectory(atPath: platform.dataDirectory + "/run/devices")
                .filter { $0.hasSuffix(".sock") }.map { String($0.dropLast(".sock".count)) }
            #expect(instances.count == 2, "\(instances)")
            for _ in 0..<3 {
                let device = try await PlatformTests.TwomesProvisioning.provision()
                secrets.add(device.deviceName, device.deviceToken, device.accountSession, "\(device.pseudonym)")
                let session = try #require(
                    try await platform.request(.POST, "/device/activate", json: #"{"activation_token":"\#(device.deviceToken)"}"#)
                        .json?["session_token"] as? String)
                secrets.add(session)
                let upload = try await platform.request(
                    .POST, "/device/measurements/variable-interval",
                    json:
                        #"{"upload_time":"1700000000","property_measurements":[{"property_name":"heartbeat","measurements":[{"timestamp":"1700000000","value":"31.4159"}]}]}"#,
                    headers: [("Authorization", "Bearer \(session)")])
                #expect(upload.status == 200, "\(upload.text)")
                let traceID = try #require(Self.traceID(of: upload))
                // No X-Request-Id was sent: the answer's is the trace id, so that either leads to the trace.
                #expect(upload.headers.first(name: "X-Request-Id") == traceID)
                let spans = try await receiver.trace(traceID) { spans in
                    spans.call(of: "devices.measurements.variable", on: "devices").map { !spans.statements(under: $0.server).isEmpty } ?? false
                        && spans.isWhole(rootedAt: "POST /device/measurements/variable-interval")
                }
                let call = try #require(spans.call(of: "devices.measurements.variable", on: "devices"), "\(spans.tree)")
                #expect(call.client.service == "gateway" && call.client.attribute("rpc.service") == "devices")
                let statements = spans.statements(under: call.server)
                // The upload's one prepared statement, by its name, in the transaction that makes its success mean committed.
                #expect(Set(statements.map(\.name)).isSuperset(of: ["BEGIN", "StoreUpload", "COMMIT"]), "\(spans.tree)")
                #expect(statements.allSatisfy { $0.kind == "CLIENT" && $0.attribute("db.query.summary") != nil })
                try Self.checkOneTree(spans, route: "POST /device/measurements/variable-interval")
                // Which replica: the service's resource names it, and the gateway's call names its socket.
                #expect(instances.contains(call.server.instance), "\(call.server.instance) is not one of \(instances)")
                #expect(
                    call.client.attribute("server.address")?.hasSuffix("/devices/\(call.server.instance).sock") == true, "\(call.client.attributes)")
            }
            // The gateway's log lines carry the trace ids.
            let gatewayLog = try String(contentsOfFile: platform.dataDirectory + "/logs/gateway.log", encoding: .utf8)
            #expect(gatewayLog.contains("trace_id=\(accountTrace)"))
        }

        /// A data vault batch whose client sent its own `traceparent`: the gateway's span continues it.
        func vaultBatch(_ receiver: OTLPReceiver, platform: RunningPlatform, secrets: Secrets) async throws {
            let user = try await PlatformTests.Vault.newUser(name: "Traced Person")
            secrets.add(user.email, user.token, "Traced Person")
            let clientTrace = Self.randomHex(16), clientSpan = Self.randomHex(8)
            let batch = #"[{"latitude":47.0707,"longitude":15.4395,"note":"kitchen-window"},{"latitude":47.0708,"longitude":15.4396}]"#
            secrets.add("47.0707", "15.4395", "kitchen-window")
            let reply = try await platform.request(
                .POST, "/api/repos/eu.ownyourdata.location/items", json: batch,
                headers: PlatformTests.Vault.bearer(user.token) + [("traceparent", "00-\(clientTrace)-\(clientSpan)-01")])
            #expect(reply.status == 200, "\(reply.text)")
            #expect(Self.traceID(of: reply) == clientTrace, "the answer continues the client's trace")
            let spans = try await receiver.trace(clientTrace) { spans in
                spans.call(of: "vault.items.write", on: "vault").map { !spans.statements(under: $0.server).isEmpty } ?? false
                    && spans.isWhole(rootedAt: "POST /api/repos/{identifier}/items")
            }
            let call = try #require(spans.call(of: "vault.items.write", on: "vault"), "\(spans.tree)")
            #expect(
                spans.statements(under: call.server).contains { $0.attribute("db.collection.name")?.hasPrefix("vault.") == true }, "\(spans.tree)")
            let root = try Self.checkOneTree(spans, route: "POST /api/repos/{identifier}/items", parent: clientSpan)
            #expect(root.attribute("http.response.status_code") == "200")
        }

        /// A LEMON app's sealed submission: the payload's opening and the answer's sealing are spans of the request,
        /// which calls auth (the IV admitted once) and statistics.
        func lemonSubmission(_ receiver: OTLPReceiver, platform: RunningPlatform, secrets: Secrets) async throws {
            let client = try await PlatformTests.Lemon.client()
            let app = LemonApp.generate()
            let session = try await client.register(app, operatingSystem: "IOS", language: "en", pushToken: nil)
            secrets.add(app.appId, session.accessToken)
            let clientTrace = Self.randomHex(16)
            let survey = Data(
                #"{"Status":"Recovered","PositiveTestDate":"2020-03-29 13:00:09.1359267","NegativeTestDate":"2020-03-30 13:00:09.1359267","Country":"GB","Language":"EN","Age":71,"IsSymptomatic":false}"#
                    .utf8)
            let reply = try await client.call(
                .POST, "/api/v1/submission/covid", body: survey, session: session,
                headers: [("traceparent", "00-\(clientTrace)-\(Self.randomHex(8))-01")])
            #expect(reply.status == 201 && reply.wasEncrypted, "\(reply.envelope.message ?? "")")
            let spans = try await receiver.trace(clientTrace) { spans in
                spans.call(of: "statistics.submission.create", on: "statistics").map { !spans.statements(under: $0.server).isEmpty } ?? false
                    && spans.contains { $0.name == "lemon seal answer" } && spans.isWhole(rootedAt: "POST /api/v1/submission/covid")
            }
            let root = try Self.checkOneTree(spans, route: "POST /api/v1/submission/covid", parent: nil, continued: true)
            for name in ["lemon open payload", "lemon seal answer"] {
                let span = try #require(spans.first { $0.name == name }, "\(spans.tree)")
                #expect(spans.descends(span, from: root) && span.service == "gateway")
            }
            let use = try #require(spans.call(of: "auth.lemon.session.use", on: "auth"), "\(spans.tree)")
            #expect(!spans.statements(under: use.server).isEmpty, "\(spans.tree)")
            #expect(spans.call(of: "statistics.submission.create", on: "statistics") != nil)
        }

        /// A `traceparent` or `tracestate` that is not W3C, however long or odd, starts a new trace: the request is
        /// answered as without it, and no process is harmed.
        func hostileTraceHeaders(_ receiver: OTLPReceiver, platform: RunningPlatform) async throws {
            let valid = "4bf92f3577b34da6a3ce929d0e0e4736"
            let headers: [[(String, String)]] = [
                [("traceparent", "")], [("traceparent", "00-\(valid)")], [("traceparent", "ff-\(valid)-00f067aa0ba902b7-01")],
                [("traceparent", "00-00000000000000000000000000000000-00f067aa0ba902b7-01")],
                [("traceparent", "00-\(valid)-0000000000000000-01")], [("traceparent", "00-\(valid.uppercased())-00f067aa0ba902b7-01")],
                [("traceparent", "00-\(valid)-00f067aa0ba902b7-zz")],
                [("traceparent", "00-\(valid)-00f067aa0ba902b7-01-" + String(repeating: "9", count: 6000))],
                [("traceparent", "00-é\(valid.dropFirst())-00f067aa0ba902b7-01")],
                [("traceparent", "00-\(Self.randomHex(16))-00f067aa0ba902b7-01"), ("tracestate", String(repeating: "k=v,", count: 1500))],
                [("traceparent", "00-\(Self.randomHex(16))-00f067aa0ba902b7-01"), ("tracestate", "=,=,,é==,a=\"b\",=")],
            ]
            for given in headers {
                let reply = try await platform.request(.GET, "/healthz", headers: given)
                #expect(reply.status == 200, "\(given.map(\.0)): \(reply.status) \(reply.text)")
                let traceID = try #require(Self.traceID(of: reply), "\(given.map(\.0)): no traceparent")
                #expect(traceID.count == 32 && traceID != String(repeating: "0", count: 32))
                if given.count == 1 { #expect(traceID != valid, "a traceparent that is not W3C was continued: \(given[0].1.prefix(80))") }
            }
            // The processes are all still there: the readiness check reaches every service.
            #expect(try await platform.request(.GET, "/readyz").status == 200)
        }

        /// No span holds a participant's identifier, credential or data, nor the attributes that would carry them.
        func checkNoParticipantData(in spans: [ReceivedSpan], secrets: [String]) throws {
            #expect(spans.count > 50)
            let forbiddenKeys = [
                "url.full", "url.path", "url.query", "http.target", "client.address", "user_agent.original", "db.query.text", "db.statement",
            ]
            for span in spans {
                var texts = [span.name] + span.attributes.map { "\($0.key)=\($0.value)" }
                for event in span.events {
                    texts.append("\(event["name"] ?? "")")
                    texts += ((event["attributes"] as? [String: Any]) ?? [:]).map { "\($0.key)=\($0.value)" }
                }
                for secret in secrets {
                    #expect(!texts.contains { $0.contains(secret) }, "a span holds '\(secret)': \(span) \(span.attributes)")
                }
                for key in forbiddenKeys { #expect(span.attributes[key] == nil, "\(span) has \(key)") }
            }
        }

        /// The collector goes down: requests are answered as before, and the spans they made are counted as dropped in
        /// /metrics; once it is back, traces arrive again.
        func collectorDown(_ receiver: OTLPReceiver, platform: RunningPlatform) async throws {
            await receiver.stop()
            for _ in 0..<5 {
                let answer = try await platform.request(.GET, "/readyz")
                #expect(answer.status == 200, "\(answer.text)")
                let account = try await platform.request(.POST, "/account", json: "{}", admin: true)
                #expect(account.status == 200 || account.status == 201, "\(account.text)")
            }
            var dropped = 0
            let deadline = ContinuousClock.now + .seconds(90)
            while dropped == 0 && ContinuousClock.now < deadline {
                dropped = try await Self.droppedByTheGateway(platform)
                if dropped == 0 { try await Task.sleep(for: .seconds(1)) }
            }
            #expect(dropped > 0, "the gateway counted no dropped spans while its collector was down")
            // Each replica's figures of each service are there too, from `system.tracing`, naming the replica: both of
            // devices'. A scrape leaves out a replica that does not answer within a second, which a loaded machine may
            // not: scraped again until every one is there.
            let services = ["auth", "devices", "devices", "links", "routes", "statistics", "vault"]
            var metrics = ""
            var lines: [String] = []
            let scrapedBy = ContinuousClock.now + .seconds(20)
            while true {
                metrics = try await platform.request(.GET, "/metrics").text
                lines = metrics.split(separator: "\n").map(String.init).filter { $0.hasPrefix("custodian_trace_exporting{") }
                // The gateway's own line and one per replica.
                if lines.count >= services.count + 1 || ContinuousClock.now >= scrapedBy { break }
                try await Task.sleep(for: .milliseconds(500))
            }
            for service in Set(services) {
                let exporting = lines.filter { $0.hasPrefix("custodian_trace_exporting{service=\"\(service)\",instance=\"") }
                #expect(exporting.count == services.filter { $0 == service }.count, "\(service): \(exporting)\n\(metrics)")
                #expect(metrics.contains("custodian_trace_spans_dropped_total{service=\"\(service)\",instance=\""))
            }

            let back = try await OTLPReceiver.start(port: receiver.port, spansFile: receiver.spansFile)
            let reply = try await platform.request(.GET, "/readyz")
            let traceID = try #require(Self.traceID(of: reply))
            let spans = try await back.trace(traceID) { $0.contains { $0.name == "GET /readyz" } }
            #expect(spans.contains { $0.name == "GET /readyz" }, "no trace arrived once the collector was back")
            await back.stop()
        }

        /// The collector is slow: it holds each export a minute, longer than the exporter waits (10 s). Requests are
        /// answered meanwhile as quickly as before, and the spans that do not fit the queue, and the batches whose export
        /// timed out, are counted as dropped.
        func collectorSlow(port: Int, platform: RunningPlatform) async throws {
            let slow = try await OTLPReceiver.start(port: port, slow: 60)
            do {
                try await whileSlow(platform)
            } catch {
                await slow.stop()
                throw error
            }
            await slow.stop()
        }

        func whileSlow(_ platform: RunningPlatform) async throws {
            let before = try await Self.droppedByTheGateway(platform)
            // `/readyz` asks every service: about seven spans each at the gateway, 700 in all for a queue of 256.
            var slowest: Duration = .zero
            for _ in 0..<100 {
                let start = ContinuousClock.now
                let answer = try await platform.request(.GET, "/readyz")
                slowest = max(slowest, ContinuousClock.now - start)
                #expect(answer.status == 200, "\(answer.text)")
            }
            // Held up by the collector, a request would take at least the exporter's 10 s.
            #expect(slowest < .seconds(8), "a request waited \(slowest) while the collector was slow")
            var dropped = before
            let deadline = ContinuousClock.now + .seconds(60)
            while dropped == before && ContinuousClock.now < deadline {
                try await Task.sleep(for: .seconds(1))
                dropped = try await Self.droppedByTheGateway(platform)
            }
            print("Tracing: slowest of 100 requests while the collector was slow: \(slowest); dropped spans \(before) → \(dropped)")
            #expect(dropped > before, "the gateway counted no dropped spans with a slow collector")
        }

        /// `custodian_trace_spans_dropped_total` of the gateway in /metrics.
        static func droppedByTheGateway(_ platform: RunningPlatform) async throws -> Int {
            let metrics = try await platform.request(.GET, "/metrics").text
            return metrics.split(separator: "\n").filter { $0.hasPrefix("custodian_trace_spans_dropped_total{service=\"gateway\"") }
                .compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }.first ?? 0
        }

        /// Every span of the trace hangs from one root, the gateway's server span for `route`, whose parent is the
        /// client's span (`parent`) or none; returns the root.
        @discardableResult
        static func checkOneTree(_ spans: [ReceivedSpan], route: String, parent: String? = nil, continued: Bool = false) throws -> ReceivedSpan {
            let ids = Set(spans.map(\.spanID))
            let roots = spans.filter { !ids.contains($0.parentSpanID) }
            let root = try #require(roots.count == 1 ? roots.first : nil, "not one root:\n\(spans.tree)")
            #expect(root.service == "gateway" && root.kind == "SERVER" && root.name == route, "\(root)")
            #expect(root.attribute("http.route") == String(route.split(separator: " ").last ?? ""))
            if let parent {
                #expect(root.parentSpanID == parent)
            } else if !continued {
                #expect(root.parentSpanID.isEmpty)
            }
            return root
        }

        static func traceID(of reply: RunningPlatform.Reply) -> String? {
            guard let traceparent = reply.headers.first(name: "traceparent") else { return nil }
            let fields = traceparent.split(separator: "-")
            return fields.count == 4 ? String(fields[1]) : nil
        }

        static func randomHex(_ bytes: Int) -> String {
            (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 1...255)) }.joined()
        }
    }
}
