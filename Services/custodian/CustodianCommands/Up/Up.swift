import ArgumentParser
import CustodianLocalPostgres
import CustodianRPC
import CustodianRuntime
import Foundation
import Logging
import NIOCore
import ServiceLifecycle

/// `custodian up`: the whole platform on this machine, PostgreSQL included.
struct Up: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Runs the whole platform locally: a private PostgreSQL cluster, every service and the gateway.")

    @Option(help: "Where the cluster, secrets, logs and sockets live.") var dataDir = ".custodian"
    @Option(help: "The gateway's port on 127.0.0.1.") var port = 8443
    @Flag(help: "Serve plain HTTP instead of HTTPS with a self-signed certificate.") var insecureHTTP = false
    @Option(help: "Use this PostgreSQL (an administrator's URL) instead of a private cluster (default: CUSTODIAN_DATABASE_URL).")
    var databaseURL: String?
    @Option(help: "Seconds to wait before restarting a service that exited.") var restartDelay: Double = 1
    @Flag(help: "Do not load the demo data (the data vault's test users, module and repo; the sample COVID-19 figures) into a new data directory.")
    var noDemo = false
    @Option(
        help:
            "Copy the private cluster's WAL into this folder, for restores to a point in time with a backup's base backup (docs/backup.md)."
    )
    var walArchive: String?
    @Option(help: "Replicas of services, e.g. devices=3,vault=2; one of each other (default: CUSTODIAN_REPLICAS).")
    var replicas: String?
    @Option(
        help: """
            Export every process's spans to this OpenTelemetry collector's OTLP/HTTP endpoint, e.g. http://127.0.0.1:4318 \
            (default: OTEL_EXPORTER_OTLP_ENDPOINT; docs/operations.md, "Tracing").
            """)
    var otlp: String?
    @Option(help: "The share of traces to record and export, from 0 to 1 (default: OTEL_TRACES_SAMPLER_ARG, else every one).")
    var traceSampling: Double?

    /// The environment with `--otlp` and `--trace-sampling` as the standard variables every process reads.
    func tracingEnvironment(_ environment: [String: String]) throws -> [String: String] {
        var environment = environment
        if let otlp {
            guard let url = URL(string: otlp), ["http", "https"].contains(url.scheme), url.host != nil else {
                throw ValidationError("--otlp takes the collector's OTLP/HTTP address, such as http://127.0.0.1:4318")
            }
            environment["OTEL_EXPORTER_OTLP_ENDPOINT"] = otlp
        }
        if let traceSampling {
            guard (0...1).contains(traceSampling) else { throw ValidationError("--trace-sampling takes a share from 0 to 1, such as 0.01") }
            environment["OTEL_TRACES_SAMPLER"] = "parentbased_traceidratio"
            environment["OTEL_TRACES_SAMPLER_ARG"] = String(traceSampling)
        }
        return environment
    }

    /// Where `up` writes the administrator's database URL (0600), for `custodian admin` and operators: the private
    /// cluster's port changes on every start.
    static let adminDatabaseURLFile = "admin-database.url"

    func run() async throws {
        let logger = Logger(label: "custodian")
        let replicaCounts = try ReplicaCounts(replicas ?? ProcessInfo.processInfo.environment[ReplicaCounts.environmentKey])
        let environment = try tracingEnvironment(ProcessInfo.processInfo.environment)
        // Another server on the port would answer the readiness check for ours, while ours could never start.
        guard FreePort.isFree(port) else {
            throw CLIError("port \(port) on 127.0.0.1 is in use by another program: stop it, or choose another port with --port")
        }
        let dataDirectory = Files.absolute(dataDir)
        // Traversable but not listable: the private cluster's directory inside belongs to the postgres user.
        try Files.makeDirectory(dataDirectory, mode: 0o711)
        let secrets = dataDirectory + "/secrets"
        let logs = dataDirectory + "/logs"
        try Files.makeDirectory(secrets)
        try Files.makeDirectory(logs, mode: 0o755)

        var cluster: PostgresCluster?
        let adminURL: DatabaseURL
        if let given = databaseURL ?? ProcessInfo.processInfo.environment[RuntimeKey.databaseURL] {
            guard walArchive == nil else {
                throw ValidationError("--wal-archive sets up the private cluster's archiving; for your own PostgreSQL, set archive_command there")
            }
            adminURL = try DatabaseURL(given)
            TerminalOutput.say("postgres   using \(adminURL)")
        } else {
            let privateCluster = try PostgresCluster(dataDirectory: dataDirectory, port: try FreePort.find())
            let fresh = !privateCluster.isInitialised
            try privateCluster.initialiseIfNeeded()
            // Each replica holds a pool of its own (CUSTODIAN_DATABASE_POOL_SIZE, 10 by default).
            try privateCluster.start(maximumConnections: max(100, 20 + replicaCounts.total * 10), walArchive: walArchive.map(Files.absolute))
            cluster = privateCluster
            adminURL = privateCluster.adminURL
            let started = fresh ? "initialised and started" : "started"
            TerminalOutput.say("postgres   \(started) on 127.0.0.1:\(privateCluster.port) (data \(privateCluster.directory))")
        }
        defer {
            if let cluster {
                cluster.stop()
                TerminalOutput.say("postgres   stopped")
            }
        }

        try Files.write(adminURL.urlString, to: dataDirectory + "/" + Self.adminDatabaseURLFile)
        try await Deployment.ensureDatabase(adminURL, logger: logger)
        _ = try await Deployment.provisionRoles(adminURL, secretsDirectory: secrets, logger: logger)
        let adminTokenPath = dataDirectory + "/admin-token"
        if !FileManager.default.fileExists(atPath: adminTokenPath),
            let token = try await Deployment.bootstrapAdminToken(
                adminURL, force: true, label: "custodian up", command: "custodian up", logger: logger)
        {
            try Files.write(token, to: adminTokenPath)
            TerminalOutput.say("admin      token created: \(token) (kept in \(adminTokenPath))")
        } else {
            TerminalOutput.say("admin      token in \(adminTokenPath)")
        }

        var gatewayEnvironment: [String: String] = [
            "CUSTODIAN_HTTP_HOST": "127.0.0.1", "CUSTODIAN_HTTP_PORT": String(port),
        ]
        let scheme = insecureHTTP ? "http" : "https"
        if insecureHTTP {
            gatewayEnvironment["CUSTODIAN_INSECURE_HTTP"] = "1"
        } else {
            try Files.makeDirectory(dataDirectory + "/tls")
            let certificate = dataDirectory + "/tls/cert.pem"
            let key = dataDirectory + "/tls/key.pem"
            try SelfSignedCertificate.createIfMissing(certificatePath: certificate, keyPath: key)
            gatewayEnvironment["CUSTODIAN_TLS_CERTIFICATE"] = certificate
            gatewayEnvironment["CUSTODIAN_TLS_KEY"] = key
        }

        let runtime = Self.runtimeDirectory(dataDirectory)
        try? FileManager.default.removeItem(atPath: runtime)  // sockets of an earlier run are stale
        try Files.makeDirectory(runtime)
        try Files.makeDirectory(dataDirectory + "/pids", mode: 0o755)

        let sealingKey = try Deployment.sealingKey(secretsDirectory: secrets)
        let lemonKeys = try Deployment.lemonKeys(secretsDirectory: secrets)
        let binaries = try executableDirectory()
        let platform = PlatformPrograms(
            environment: environment, runtimeDirectory: runtime, parent: getpid(),
            eventLoops: Self.eventLoopsPerProcess,
            publicBaseURL: "\(scheme)://127.0.0.1:\(port)", binaries: binaries, logs: logs,
            databaseURLFiles: Dictionary(
                uniqueKeysWithValues: Platform.services.map { ($0, DatabaseLoginFiles(secretsDirectory: secrets, service: $0).url) }),
            sealingKeyFile: sealingKey, lemonKeysFile: lemonKeys, gatewayEnvironment: gatewayEnvironment)
        let programs = platform.all(replicaCounts)

        let supervisor = Supervisor(
            programs: programs, restartDelay: .milliseconds(Int64(restartDelay * 1000)), pidDirectory: dataDirectory + "/pids")
        let url = "\(scheme)://127.0.0.1:\(port)"
        let demoMarker = dataDirectory + "/demo-loaded"
        let announcer = ReadinessAnnouncer(
            url: url, adminToken: Files.read(adminTokenPath) ?? "",
            demoMarker: noDemo || FileManager.default.fileExists(atPath: demoMarker) ? nil : demoMarker)
        let runtimeDirectory = RuntimeDirectory(path: runtime)
        let restarts = RestartRequests(
            dataDirectory: dataDirectory, supervisor: supervisor, replicas: replicaCounts, program: platform.replica(of:named:),
            socket: { service, instance in SocketFile.identity(runtimeDirectory.socketPath(service: service, instance: instance)) })
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    .init(service: supervisor),
                    .init(service: announcer, successTerminationBehavior: .ignore),
                    .init(service: restarts),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// Event loops of each process, unless `CUSTODIAN_EVENT_LOOPS` says otherwise: half the cores. On one host a call
    /// keeps the gateway and a service busy at once, so a loop per core in each gives twice as many busy threads as
    /// cores, and the kernel's switching between them costs more than the work: with wrk at 16 connections on 2 cores
    /// (`POST /upload`, docs/benchmarks.md), 2 loops each took 50 µs of gateway CPU and 20 µs of `devices` CPU a
    /// request, 1 loop each 38 and 14, and served 23k instead of 25k requests/s.
    static var eventLoopsPerProcess: Int { max(1, System.coreCount / 2) }

    /// `<data dir>/run`, unless socket paths there would pass the kernel's limit (then a folder in /tmp named after it).
    static func runtimeDirectory(_ dataDirectory: String) -> String {
        let preferred = dataDirectory + "/run"
        let longest = "\(preferred)/statistics/statistics.sock"
        if longest.utf8.count <= 100 { return preferred }
        let digest = String(UInt32(truncatingIfNeeded: preferred.hashValue), radix: 16)
        return "/tmp/custodian-\(getuid())-\(digest)"
    }

    /// Where the other executables are: next to this one.
    private func executableDirectory() throws -> String {
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let directory = (Files.absolute(own) as NSString).deletingLastPathComponent
        guard FileManager.default.isExecutableFile(atPath: directory + "/gateway") else {
            throw CLIError("the service executables are not next to custodian in \(directory); run `swift build` first")
        }
        return directory
    }
}
