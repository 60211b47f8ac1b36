import CustodianAudit
import CustodianLocalPostgres
import CustodianRuntime
import Foundation
import Logging
import PostgresNIO

/// The PostgreSQL the service tests share: one private cluster per test process, made with the installed binaries as
/// `custodian up` makes its own, started on first use and stopped when the process exits. Each harness gets a
/// database of its own in it, so tests running side by side never see each other's rows.
public actor TestPostgres {
    public static let shared = TestPostgres()

    private var started: Result<PostgresCluster, any Error>?
    /// Role passwords, one per service for the whole process: a role belongs to the cluster, not to a database.
    private var rolePasswords: [String: String] = [:]
    /// One at a time: the cluster is started once, and provisioning alters roles, which belong to the whole cluster
    /// (two at once fail: "tuple concurrently updated"). An actor alone would let callers in at each `await`.
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// The superuser's URL for a new, empty database, and each service's URL for it (its role, its schema).
    public func makeDatabase(for services: [String], logger: Logger) async throws -> (admin: DatabaseURL, services: [String: DatabaseURL]) {
        await enter()
        defer { leave() }
        let cluster = try await cluster()
        let name = "t_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        var clusterAdmin = cluster.adminURL
        clusterAdmin.database = "postgres"
        try await PostgresClient.withClient(url: clusterAdmin, poolSize: 1, logger: logger) { client in
            _ = try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        }
        let admin = DatabaseURL(
            host: clusterAdmin.host, port: clusterAdmin.port, username: clusterAdmin.username,
            password: clusterAdmin.password, database: name)
        let roles = services.map { service in
            let password = rolePasswords[service] ?? UUID().uuidString
            rolePasswords[service] = password
            return DatabaseProvisioner.ServiceRole(service: service, password: password)
        }
        try await PostgresClient.withClient(url: admin, poolSize: 1, logger: logger) { client in
            try await DatabaseProvisioner().provision(roles, on: client, logger: logger)
            if services.contains(AuditSchema.writer) { try await AuditSchema.provision(on: client, logger: logger) }
        }
        let urls = Dictionary(uniqueKeysWithValues: roles.map { ($0.service, admin.with(username: $0.role, password: $0.password)) })
        return (admin, urls)
    }

    private func enter() async {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
    }

    private func leave() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }

    private func cluster() async throws -> PostgresCluster {
        if let started { return try started.get() }
        let result: Result<PostgresCluster, any Error>
        do {
            // initdb and pg_ctl block for seconds: not on the cooperative pool's few threads.
            result = .success(try await BlockingWork.run { try Self.startCluster() })
        } catch {
            result = .failure(error)
        }
        started = result
        return try result.get()
    }

    private static func startCluster() throws -> PostgresCluster {
        let directory = "/tmp/cst-pg-\(getpid())-\(UUID().uuidString.prefix(6).lowercased())"
        // Traversable by the postgres user, which runs the server when the tests run as root.
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o711])
        let cluster = try PostgresCluster(dataDirectory: directory, port: try FreePort.find())
        try cluster.initialiseIfNeeded()
        // Every harness's services hold pools of their own (10 connections each), and the whole suite runs at once.
        try cluster.start(maximumConnections: 1000)
        ClusterAtExit.register(cluster, directory: directory)
        return cluster
    }
}

/// Stops the cluster and removes its files when the test process exits (not when a signal kills it).
private enum ClusterAtExit {
    nonisolated(unsafe) static var stop: (() -> Void)?

    static func register(_ cluster: PostgresCluster, directory: String) {
        stop = {
            cluster.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        atexit { ClusterAtExit.stop?() }
    }
}
