import CustodianRPC
import CustodianRuntime
import Foundation
import Synchronization
import Testing

/// `custodian up --replicas` (here `CUSTODIAN_REPLICAS=devices=2`): replicas share the load, a rolling restart
/// (`custodian restart`) fails no request, and a replica killed outright loses no upload, since uploads are safe to
/// send again and the gateway sends a call lost with its replica to another one.
@Suite(
    "Replicas of a service", .serialized,
    .runningPlatform(settings: ["CUSTODIAN_RATE_LIMITS": "off", "CUSTODIAN_REPLICAS": "devices=2"]))
struct ReplicaTests {
    /// The answers to the heartbeat uploads three devices send one after another while `body` runs (devices), and to
    /// a short link opened over and over (links), by status (0: no HTTP answer at all).
    static func answersToUploads(while body: @Sendable () async throws -> Void) async throws -> (byStatus: [Int: Int], failures: [String]) {
        let platform = try platform
        var tokens: [String] = []
        for _ in 0..<3 {
            let device = try await PlatformTests.TwomesProvisioning.provision()
            let activated = try await platform.request(.POST, "/device/activate", json: #"{"activation_token":"\#(device.deviceToken)"}"#)
            tokens.append(try #require(activated.json?["session_token"] as? String))
        }
        let link = try await platform.request(.POST, "/admin/v1/links", json: #"{"app_url":"https://example.org/app"}"#, admin: true)
        let code = try #require(link.json?["code"] as? String, "\(link.text)")
        let tally = Tally()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for token in tokens {
                group.addTask {
                    var time = 1_700_000_000
                    while !tally.stopped {
                        time += 1
                        let heartbeat =
                            #"{"upload_time":"\#(time)","property_measurements":[{"property_name":"heartbeat","measurements":[{"timestamp":"\#(time)","value":"1"}]}]}"#
                        let reply = try? await platform.request(
                            .POST, "/device/measurements/variable-interval", json: heartbeat,
                            headers: [("Authorization", "Bearer \(token)")])
                        tally.count(reply?.status ?? 0, reply.map { $0.status == 200 ? "" : $0.text } ?? "no answer")
                    }
                }
            }
            group.addTask {
                while !tally.stopped {
                    let reply = try? await platform.request(.GET, "/l/\(code)")
                    tally.count(reply?.status ?? 0, reply.map { $0.status == 200 ? "" : $0.text } ?? "no answer")
                }
            }
            // Uploads under way before anything happens.
            while tally.total < 30 { try await Task.sleep(for: .milliseconds(20)) }
            do {
                try await body()
            } catch {
                tally.stop()
                throw error
            }
            // And a while after, on whatever replicas there are now.
            let after = tally.total
            while tally.total < after + 30 { try await Task.sleep(for: .milliseconds(20)) }
            tally.stop()
            try await group.waitForAll()
        }
        return (tally.answers, tally.failures)
    }

    final class Tally: Sendable {
        private let state = Mutex((answers: [Int: Int](), stopped: false, failures: [String]()))
        /// One answer; the body of the first few that were not 200, for a failure's message.
        func count(_ status: Int, _ body: String) {
            state.withLock { state in
                state.answers[status, default: 0] += 1
                if status != 200, state.failures.count < 5 { state.failures.append("\(status) \(body.prefix(200))") }
            }
        }
        var failures: [String] { state.withLock { $0.failures } }
        func stop() { state.withLock { $0.stopped = true } }
        var stopped: Bool { state.withLock { $0.stopped } }
        var answers: [Int: Int] { state.withLock { $0.answers } }
        var total: Int { answers.values.reduce(0, +) }
    }

    func restart(_ service: String) async throws {
        let platform = try platform
        let (status, output) = try await RunningPlatform.run(
            platform.binaries + "/custodian", ["restart", service, "--data-dir", platform.dataDirectory])
        #expect(status == 0, "custodian restart \(service): \(output)")
        #expect(output.contains("\(service): every replica replaced"), "\(output)")
    }

    @Test func replicaCountsAreCheckedBeforeAnythingStarts() async throws {
        let platform = try platform
        for (list, message) in [
            ("gateway=2", "one gateway per machine"),
            ("toaster=2", "unknown service 'toaster'"),
            ("devices=17", "a service runs 1 to 16 replicas"),
            ("devices", "is not service=count"),
        ] {
            let (status, output) = try await RunningPlatform.run(
                platform.binaries + "/custodian", ["up", "--data-dir", "/tmp/cit-unused-\(UUID().uuidString.prefix(8))", "--replicas", list])
            #expect(status != 0 && output.contains(message), "--replicas \(list): \(status) \(output)")
        }
    }

    @Test func restartSaysWhatIsWrong() async throws {
        let platform = try platform
        let custodian = platform.binaries + "/custodian"
        let unknown = try await RunningPlatform.run(custodian, ["restart", "toaster", "--data-dir", platform.dataDirectory])
        #expect(unknown.status != 0 && unknown.output.contains("unknown service 'toaster'"), "\(unknown)")
        let nobody = try await RunningPlatform.run(custodian, ["restart", "devices", "--data-dir", "/tmp/cit-nobody-\(UUID().uuidString.prefix(8))"])
        #expect(nobody.status != 0 && nobody.output.contains("no `custodian up` is running"), "\(nobody)")
    }

    /// What a Kubernetes exec probe runs: the service's own executable, asking its replica for `system.health`.
    @Test func aReplicaAnswersItsProbes() async throws {
        let platform = try platform
        func probe(_ arguments: [String], instance: String) async throws -> (status: Int32, output: String) {
            try await RunningPlatform.run(
                platform.binaries + "/devices", arguments,
                environment: [
                    "CUSTODIAN_RUNTIME_DIR": platform.dataDirectory + "/run", "CUSTODIAN_INSTANCE": instance, "CUSTODIAN_DATABASE_URL": "",
                ])
        }
        let ready = try await probe(["--probe", "ready"], instance: "devices-2")
        #expect(ready.status == 0 && ready.output.contains("devices devices-2: ready"), "\(ready)")
        let live = try await probe(["--probe=live"], instance: "devices-1")
        #expect(live.status == 0 && live.output.contains("devices devices-1: live"), "\(live)")
        let missing = try await probe(["--probe", "live"], instance: "devices-9")
        #expect(missing.status == 1 && missing.output.contains("live probe failed"), "\(missing)")
        let wrong = try await probe(["--probe", "sideways"], instance: "devices-1")
        #expect(wrong.status == 2 && wrong.output.contains("--probe needs live or ready"), "\(wrong)")
    }

    /// A compose healthcheck names no replica: in a container the replica's socket is named after the host and its
    /// process id, and the probe asks the one socket of this host.
    @Test func aProbeFindsTheOneReplicaOfItsHost() async throws {
        let platform = try platform
        let runtime = "/tmp/cpr-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: runtime + "/devices", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "host"
        func probe() async throws -> (status: Int32, output: String) {
            try await RunningPlatform.run(
                platform.binaries + "/devices", ["--probe", "ready"],
                environment: [
                    "CUSTODIAN_RUNTIME_DIR": runtime, "CUSTODIAN_DATABASE_URL": "",
                ])
        }
        let none = try await probe()
        #expect(none.status == 1 && none.output.contains("no replica of devices on this host"), "\(none)")
        try FileManager.default.createSymbolicLink(
            atPath: "\(runtime)/devices/\(host)-4242.sock", withDestinationPath: platform.dataDirectory + "/run/devices/devices-2.sock")
        try FileManager.default.createSymbolicLink(
            atPath: "\(runtime)/devices/elsewhere-1.sock", withDestinationPath: platform.dataDirectory + "/run/devices/devices-1.sock")
        let found = try await probe()
        #expect(found.status == 0 && found.output.contains("devices devices-2: ready"), "\(found)")
        try FileManager.default.createSymbolicLink(
            atPath: "\(runtime)/devices/\(host)-4343.sock", withDestinationPath: platform.dataDirectory + "/run/devices/devices-1.sock")
        let two = try await probe()
        #expect(two.status == 1 && two.output.contains("2 replicas of devices run on this host"), "\(two)")
    }

    /// What a compose healthcheck of the gateway runs: `GET /healthz` or `/readyz` on its own port.
    @Test func theGatewayAnswersItsProbes() async throws {
        let platform = try platform
        let port = try #require(URLComponents(string: platform.baseURL)?.port)
        func probe(_ kind: String, port: Int) async throws -> (status: Int32, output: String) {
            try await RunningPlatform.run(
                platform.binaries + "/gateway", ["--probe", kind],
                environment: [
                    "CUSTODIAN_HTTP_PORT": String(port),
                    "CUSTODIAN_TLS_CERTIFICATE": platform.dataDirectory + "/tls/cert.pem",
                    "CUSTODIAN_TLS_KEY": platform.dataDirectory + "/tls/key.pem",
                ])
        }
        let ready = try await probe("ready", port: port)
        #expect(ready.status == 0 && ready.output.contains("gateway: ready"), "\(ready)")
        let live = try await probe("live", port: port)
        #expect(live.status == 0 && live.output.contains("gateway: live"), "\(live)")
        let nobody = try await probe("live", port: try FreePort.find())
        #expect(nobody.status == 1 && nobody.output.contains("live probe failed"), "\(nobody)")
    }

    /// An erasure on one replica while the participant's devices upload through both: every upload that raced it was
    /// either refused or erased with the rest (the device's row lock is in the database, whichever replica holds it).
    @Test func anErasureRacingUploadsOnEveryReplicaLeavesNoReading() async throws {
        let platform = try platform
        let device = try await PlatformTests.TwomesProvisioning.provision()
        let session = try #require(
            try await platform.request(.POST, "/device/activate", json: #"{"activation_token":"\#(device.deviceToken)"}"#).json?["session_token"]
                as? String)
        let marker = String(UInt64.random(in: 1_000_000_000...9_999_999_999))
        let acknowledged = try await withThrowingTaskGroup(of: Int.self) { group in
            for uploader in 0..<4 {
                group.addTask {
                    var stored = 0
                    for i in 0..<40 {
                        let time = 1_700_000_000 + uploader * 10_000 + i
                        let body =
                            #"{"upload_time":"\#(time)","property_measurements":[{"property_name":"heartbeat","measurements":[{"timestamp":"\#(time)","value":"5\#(marker)"}]}]}"#
                        let reply = try await platform.request(
                            .POST, "/device/measurements/variable-interval", json: body, headers: [("Authorization", "Bearer \(session)")])
                        if reply.status == 200 { stored += 1 }
                    }
                    return stored
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            let erased = try await platform.request(.DELETE, "/admin/v1/accounts/\(device.pseudonym)", admin: true)
            #expect(erased.status == 200, "\(erased.text)")
            var total = 0
            for try await stored in group { total += stored }
            return total
        }
        #expect(acknowledged > 0, "no upload came before the erasure")
        #expect(try platform.sql("SELECT count(*) FROM devices.measurements WHERE value = '5\(marker)'") == "0")
        #expect(
            try platform.sql(
                "SELECT count(*) FROM devices.uploads u JOIN devices.devices d ON d.id = u.device_id WHERE d.name = '\(device.deviceName)'") == "0")
    }

    @Test func aRollingRestartFailsNoRequest() async throws {
        let platform = try platform
        let sockets = try FileManager.default.contentsOfDirectory(atPath: platform.dataDirectory + "/run/devices").sorted()
        #expect(sockets == ["devices-1.sock", "devices-2.sock"])
        let before = try ["devices-1", "devices-2", "links"].map { try platform.pid(of: $0) }
        let answers = try await Self.answersToUploads {
            // Two replicas, replaced one at a time; and the one replica of links, which a temporary one stands in for.
            try await restart("devices")
            try await restart("links")
        }
        #expect(
            answers.byStatus.keys.sorted() == [200],
            "answers by status: \(answers.byStatus), first failures: \(answers.failures)\n\(Self.gatewayWarnings())")
        let after = try ["devices-1", "devices-2", "links"].map { try platform.pid(of: $0) }
        for (old, new) in zip(before, after) { #expect(old != new, "a replica kept its process") }
        #expect(!FileManager.default.fileExists(atPath: platform.dataDirectory + "/run/links/links-surge.sock"))
    }

    @Test func aReplicaKilledOutrightLosesNoUpload() async throws {
        let platform = try platform
        let answers = try await Self.answersToUploads {
            for replica in ["devices-1", "devices-2"] {
                let old = try platform.pid(of: replica)
                // A killed replica leaves its socket file behind: the new one makes another.
                let socket = platform.dataDirectory + "/run/devices/\(replica).sock"
                let oldSocket = SocketFile.identity(socket)
                kill(old, SIGKILL)
                // Until the supervisor has it back and it listens: then the other one.
                let deadline = ContinuousClock.now + .seconds(60)
                while SocketFile.identity(socket) == oldSocket || SocketFile.identity(socket) == nil {
                    guard ContinuousClock.now < deadline else { throw PlatformError("\(replica) did not come back") }
                    try await Task.sleep(for: .milliseconds(50))
                }
                // As an operator would, and as `custodian restart` does: the other one once callers know the new one.
                try await Task.sleep(for: .seconds(1))
            }
        }
        #expect(
            answers.byStatus.keys.sorted() == [200],
            "answers by status: \(answers.byStatus), first failures: \(answers.failures)\n\(Self.gatewayWarnings())")
    }

    /// The gateway's last warnings, for a failure's message.
    static func gatewayWarnings() -> String {
        guard let platform = try? platform,
            let log = try? String(contentsOfFile: platform.dataDirectory + "/logs/gateway.log", encoding: .utf8)
        else { return "" }
        return log.split(separator: "\n").filter { $0.contains("warning") }.suffix(12).joined(separator: "\n")
    }
}
