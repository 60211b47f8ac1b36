import AsyncHTTPClient
import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import Testing

/// The whole platform as a user starts it: `custodian up` on a fresh data directory, with its private
/// PostgreSQL cluster, every service and the gateway as real processes on real sockets, serving HTTPS
/// with the certificate it generated (which the test client trusts, and nothing else).
final class RunningPlatform: Sendable {
    @TaskLocal static var current: RunningPlatform?

    let baseURL: String
    let dataDirectory: String
    let adminToken: String
    let binaries: String
    let http: HTTPClient
    private let process: Process
    private let outputPath: String

    private init(
        baseURL: String, dataDirectory: String, adminToken: String, binaries: String, http: HTTPClient,
        process: Process, outputPath: String
    ) {
        self.baseURL = baseURL
        self.dataDirectory = dataDirectory
        self.adminToken = adminToken
        self.binaries = binaries
        self.http = http
        self.process = process
        self.outputPath = outputPath
    }

    /// Settings most suites run with: many clients are simulated from one address, so the gateway's rate limits
    /// are off unless a suite that tests them turns them on.
    static let defaultSettings = ["CUSTODIAN_RATE_LIMITS": "off"]

    /// `restartDelay`: seconds before the supervisor restarts a service that exited; a suite that watches the outage
    /// in between wants it longer than a loaded machine may stall the test process.
    /// `dataDirectory`: start on this one (a restored backup) instead of a new one. `arguments` go to `custodian up`.
    static func start(
        settings: [String: String] = defaultSettings, restartDelay: Int = 3, dataDirectory given: String? = nil, arguments: [String] = []
    ) async throws -> RunningPlatform {
        let binaries = try binaryDirectory()
        let dataDirectory = given ?? newDataDirectory()
        let outputPath = dataDirectory + ".out"
        let port = try FreePort.find()
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))

        let process = Process()
        process.executableURL = URL(fileURLWithPath: binaries + "/custodian")
        process.arguments = ["up", "--data-dir", dataDirectory, "--port", String(port), "--restart-delay", String(restartDelay)] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["CUSTODIAN_DATABASE_URL"] = nil
        environment.merge(settings) { _, new in new }
        process.environment = environment
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()

        let baseURL = "https://127.0.0.1:\(port)"
        let deadline = ContinuousClock.now + .seconds(180)
        while !(Self.read(outputPath).contains("custodian ready: \(baseURL)")) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                if process.isRunning { process.terminate() }
                throw PlatformError("custodian up did not become ready:\n\(Self.read(outputPath))")
            }
            try await Task.sleep(for: .milliseconds(200))
        }

        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(dataDirectory + "/tls/cert.pem"))
        // Every suite's tests share this client and run at once, so requests queue for its 8 connections per host; on a
        // loaded 2-core machine (three platforms of the suite running) a queued one outwaited the default 10 s it may wait
        // for a connection (`getConnectionFromPoolTimeout`) before it was ever sent. More connections instead would
        // load the platform with more concurrent requests than the tests mean to send (its database waits give 503s).
        let configuration = HTTPClient.Configuration(tlsConfiguration: tls, timeout: .init(connect: .seconds(30)))
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let token = try String(contentsOfFile: dataDirectory + "/admin-token", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return RunningPlatform(
            baseURL: baseURL, dataDirectory: dataDirectory, adminToken: token, binaries: binaries,
            http: http, process: process, outputPath: outputPath)
    }

    /// Stops the platform as Ctrl-C would, and checks that it stopped cleanly: exit status 0, no process
    /// left, every socket file removed.
    func stop() async throws {
        try? await http.shutdown()
        process.interrupt()
        let deadline = ContinuousClock.now + .seconds(30)
        while process.isRunning && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        if process.isRunning {
            process.terminate()
            Issue.record("custodian up did not stop within 30 s of SIGINT:\n\(output)")
            return
        }
        #expect(process.terminationStatus == 0, "custodian up exited with \(process.terminationStatus):\n\(output)")
        let sockets =
            FileManager.default.enumerator(atPath: dataDirectory + "/run")?.compactMap { $0 as? String }.filter { $0.hasSuffix(".sock") } ?? []
        #expect(sockets.isEmpty, "socket files left behind: \(sockets)")
        #expect(output.contains("postgres   stopped"))
        try? FileManager.default.removeItem(atPath: dataDirectory)
        try? FileManager.default.removeItem(atPath: outputPath)
    }

    var output: String { Self.read(outputPath) }

    /// A data directory path of the kind `start` makes (not made yet).
    static func newDataDirectory() -> String { "/tmp/cit-\(UUID().uuidString.prefix(8).lowercased())" }

    private static func read(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// The executables built next to this test bundle.
    static func binaryDirectory() throws -> String {
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var candidates = [(own as NSString).deletingLastPathComponent]
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        candidates.append(root + "/.build/debug")
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0 + "/custodian") }) else {
            throw PlatformError("no custodian executable in \(candidates); build the products first (`swift build`)")
        }
        return found
    }

    // MARK: Requests

    struct Reply: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: Data

        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    func request(
        _ method: HTTPMethod, _ path: String, json: String? = nil, rawBody: Data? = nil,
        headers: [(String, String)] = [], admin: Bool = false
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if admin { request.headers.add(name: "Authorization", value: "Bearer \(adminToken)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        } else if let rawBody {
            request.body = .bytes(ByteBuffer(bytes: rawBody))
        }
        let response = try await http.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 16 * 1024 * 1024)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView))
    }

    /// The private cluster's superuser URL, from the port in `custodian up`'s output and the stored password.
    var adminDatabaseURL: String {
        get throws {
            guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("postgres ") }),
                let portText = line.split(separator: ":").last?.split(separator: " ").first
            else { throw PlatformError("no postgres line in the output") }
            let password = try String(contentsOfFile: dataDirectory + "/secrets/postgres-password", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            return "postgres://custodian:\(password)@127.0.0.1:\(portText)/custodian"
        }
    }

    /// Runs SQL as the cluster's superuser with psql and returns its unaligned output.
    func sql(_ statement: String) throws -> String {
        try run(Self.postgresTool("psql"), [try adminDatabaseURL, "-At", "-c", statement]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// How many rows of `table` hold `plaintext`'s UTF-8 bytes anywhere in their bytea `column`. Compared as bytes: a
    /// bytea as text (`column::text`) is `\x` and hex, in which no plaintext is ever found.
    func rows(of table: String, holding plaintext: String, in column: String) throws -> Int {
        let literal = plaintext.replacingOccurrences(of: "'", with: "''")
        let count = try sql("SELECT count(*) FROM \(table) WHERE position(convert_to('\(literal)', 'UTF8') in \(column)) > 0")
        guard let rows = Int(count) else { throw PlatformError("psql answered '\(count)', not a count") }
        return rows
    }

    /// The whole database as `pg_dump` writes it: what someone who steals a backup has.
    func databaseDump() throws -> String {
        try run(Self.postgresTool("pg_dump"), ["--dbname=\(try adminDatabaseURL)", "--no-owner"])
    }

    /// The forms a secret takes in a dump: as text, and as the hex of its bytes, which is how a bytea column holding
    /// them is dumped (`\x…`).
    static func dumpForms(of secret: String) -> [String] {
        [secret, Data(secret.utf8).map { String(format: "%02x", $0) }.joined()]
    }

    /// Stops the platform's PostgreSQL (fast shutdown: sessions are cut, as in a crash or a restart).
    func stopDatabase() throws {
        _ = try run(Self.postgresTool("pg_ctl"), ["-D", dataDirectory + "/postgres", "-m", "fast", "-w", "stop"], asDatabaseOwner: true)
    }

    /// Starts it again on the same port, as `custodian up` started it.
    func startDatabase() throws {
        guard let port = URLComponents(string: try adminDatabaseURL)?.port else { throw PlatformError("no database port") }
        _ = try run(
            Self.postgresTool("pg_ctl"),
            [
                "-D", dataDirectory + "/postgres", "-l", dataDirectory + "/postgres/server.log", "-w", "-t", "60",
                "-o", "-p \(port) -c listen_addresses=127.0.0.1 -c unix_socket_directories=''", "start",
            ], asDatabaseOwner: true)
    }

    private static func postgresTool(_ name: String) throws -> String {
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).sorted(by: >)
        let candidates = versions.map { "/usr/lib/postgresql/\($0)/bin/\(name)" } + ["/usr/bin/\(name)"]
        guard let binary = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw PlatformError("\(name) not found")
        }
        return binary
    }

    /// Runs a PostgreSQL tool (its output and errors together); the cluster's own ones as its owner, as
    /// `custodian up` runs them.
    private func run(_ binary: String, _ arguments: [String], asDatabaseOwner: Bool = false) throws -> String {
        try Shell.run([binary] + arguments, as: asDatabaseOwner ? "postgres" : nil)
    }

    /// A copy of the audit log (the `audit` schema as `pg_dump` writes it) in a new database of the same cluster, for
    /// tests that tamper with entries as the database's owner without touching the platform's own log. Its URL.
    func copyOfAuditLog() throws -> String {
        let admin = try adminDatabaseURL
        let name = "audit_copy_\(UUID().uuidString.prefix(8).lowercased())"
        _ = try sql("CREATE DATABASE \(name)")
        guard let path = admin.range(of: "/custodian", options: .backwards) else { throw PlatformError("no database in \(admin)") }
        let copy = admin.replacingCharacters(in: path, with: "/\(name)")
        let file = dataDirectory + "/\(name).sql"
        _ = try run(Self.postgresTool("pg_dump"), ["--dbname=\(admin)", "--schema=audit", "--no-owner", "--no-privileges", "--file=\(file)"])
        _ = try run(Self.postgresTool("psql"), [copy, "-q", "-v", "ON_ERROR_STOP=1", "-f", file])
        return copy
    }

    /// Runs SQL as the cluster's superuser in another database of the cluster (a copy made by ``copyOfAuditLog()``).
    func sql(_ statement: String, in url: String) throws -> String {
        try run(Self.postgresTool("psql"), [url, "-At", "-c", statement]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The process ids of every service and the gateway, as `custodian up` last started them.
    func processIDs() throws -> [String: pid_t] {
        var ids: [String: pid_t] = [:]
        for name in ["gateway", "auth", "vault", "routes", "devices", "statistics", "links"] { ids[name] = try pid(of: name) }
        return ids
    }

    /// Every log line the platform's processes wrote so far.
    func logs() -> String {
        let directory = dataDirectory + "/logs"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.map { Self.read("\(directory)/\($0)") }.joined(separator: "\n")
    }

    /// The private key `auth` signs access tokens with, opened with the deployment's sealing key as `auth` opens
    /// it: for tests that need a token the platform would not issue (expired, other claims).
    func signingKeyPEM(kid: String) throws -> String {
        let sealedText = try sql("SELECT encode(private_key_sealed, 'base64') FROM auth.signing_keys WHERE kid = '\(kid)'")
        guard let sealed = Data(base64Encoded: sealedText.replacingOccurrences(of: "\n", with: "")) else {
            throw PlatformError("no sealed key \(kid)")
        }
        return try sealer().open(sealed, context: "auth-signing-key:\(kid)")
    }

    /// The deployment's sealer, with the keys its key file holds now.
    func sealer() throws -> Sealer {
        try Sealer(keyringText: String(contentsOfFile: dataDirectory + "/secrets/sealing-key", encoding: .utf8))
    }

    /// The SQL literal of the key `auth` counts failed logins for `email` under: its keyed digest, as the service makes it.
    func loginFailureKey(_ email: String) throws -> String {
        let digest = try sealer().digest(email, context: "auth-login-failures")
        return "decode('\(digest.map { String(format: "%02x", $0) }.joined())', 'hex')"
    }

    // MARK: Load

    /// `custodian loadgen ARGUMENTS` against this platform: its exit status, its output and its JSON report.
    func loadgen(_ arguments: [String]) async throws -> LoadRun {
        let reportPath = NSTemporaryDirectory() + "loadgen-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: reportPath) }
        let run = try await custodian(["loadgen", "--server", baseURL, "--data-dir", dataDirectory, "--report", reportPath] + arguments)
        let report = try FileManager.default.contents(atPath: reportPath).map { try JSONDecoder().decode(LoadReport.self, from: $0) }
        return LoadRun(status: run.status, output: run.output, report: report)
    }

    /// A steady trickle of every flow for `duration` rather than as fast as it can: the rest of the suite shares the
    /// machine, and a proof that nothing fails during an operation needs requests that race it, not a flood.
    static func gentleLoad(for duration: String) -> [String] {
        ["--scenario", "mixed", "--duration", duration, "--rate", "15", "--ramp-up", "1s", "--clients", "2"]
    }

    // MARK: RPC

    /// An RPC client for these services' replicas in the platform's runtime directory
    /// (`<data dir>/run/<service>/*.sock`), found as the gateway finds them. Shut it down after use.
    func rpcClient(_ services: [String]) -> RPCClient {
        RPCClient(
            services: Dictionary(uniqueKeysWithValues: services.map { ($0, RPCClient.Discovery.directory("\(dataDirectory)/run/\($0)")) }),
            logger: Logger(label: "integration-tests"))
    }

    /// Calls `method` of `service` directly, as the gateway would after authenticating `principal` (nil: no
    /// principal). For routes whose credentials a test cannot make yet (the LEMON app's JWTs).
    func call<Input: Codable & Sendable, Output: Decodable & Sendable>(
        _ service: String, _ method: String, input: Input, principal: Principal?, as output: Output.Type = Output.self
    ) async throws -> Output {
        let client = rpcClient([service])
        defer { client.shutdown() }
        let context = CallContext(
            requestID: "integration-\(UUID().uuidString.lowercased())", deadline: Date().addingTimeInterval(30), principal: principal)
        return try await client.call(service, method, input: input, context: context, as: output)
    }

    func pid(of service: String) throws -> pid_t {
        let text = try String(contentsOfFile: "\(dataDirectory)/pids/\(service).pid", encoding: .utf8)
        guard let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw PlatformError("no pid for \(service)") }
        return pid
    }
}

/// What `custodian loadgen` did: ``RunningPlatform/loadgen(_:)``.
struct LoadRun: Sendable {
    var status: Int32
    var output: String
    /// Nil when it wrote none (it stopped before the load).
    var report: LoadReport?
}

/// The parts of `custodian loadgen --report FILE` the tests read.
struct LoadReport: Decodable, Sendable {
    struct Summary: Decodable, Sendable {
        var operations: Int
        var errors: Int
        var p99Milliseconds: Double
        var maxMilliseconds: Double
        var statuses: [String: Int]
    }

    /// One of the run's slowest requests (docs/benchmarks.md): null where the answer had nothing, or there was none.
    struct Slow: Decodable, Sendable {
        var operation: String
        var ms: Double
        var status: Int?
        var trace_id: String?
        var request_id: String?
    }

    struct Check: Decodable, Sendable {
        var scenario: String
        var acknowledged: Int
        var found: Int
        var lost: Int
        var duplicated: Int
    }

    var total: Summary
    var scenarios: [String: Summary]
    var verification: [Check]
    var memory: [String: [String: Int]]
    var durationSeconds: Double
    var slowest: [Slow]

    /// Every write the run was told had been stored was read back exactly once.
    var nothingLost: Bool { verification.allSatisfy { $0.lost == 0 && $0.duplicated == 0 && $0.found == $0.acknowledged } }
}

struct PlatformError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Starts the platform once for a suite and stops it (checking the shutdown) after the suite's tests.
struct PlatformTrait: SuiteTrait, TestScoping {
    var settings = RunningPlatform.defaultSettings
    var restartDelay = 3
    var isRecursive: Bool { false }

    func scopeProvider(for test: Test, testCase: Test.Case?) -> PlatformTrait? {
        test.isSuite ? self : nil
    }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let platform = try await RunningPlatform.start(settings: settings, restartDelay: restartDelay)
        do {
            try await RunningPlatform.$current.withValue(platform) { try await function() }
        } catch {
            try await platform.stop()
            throw error
        }
        try await platform.stop()
    }
}

extension Trait where Self == PlatformTrait {
    static var runningPlatform: Self { PlatformTrait() }

    /// A platform whose gateway and services get these settings (`CUSTODIAN_…`) instead of the default ones.
    static func runningPlatform(settings: [String: String]) -> Self { PlatformTrait(settings: settings) }

    /// A platform whose supervisor waits `restartDelay` seconds before it restarts a service that exited.
    static func runningPlatform(settings: [String: String] = RunningPlatform.defaultSettings, restartDelay: Int) -> Self {
        PlatformTrait(settings: settings, restartDelay: restartDelay)
    }
}

/// The platform of the enclosing suite.
var platform: RunningPlatform {
    get throws {
        guard let current = RunningPlatform.current else { throw PlatformError("no running platform: the suite needs .runningPlatform") }
        return current
    }
}
