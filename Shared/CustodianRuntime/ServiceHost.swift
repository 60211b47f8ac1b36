import CustodianContracts
import CustodianRPC
// Every service needs the process's settings and logging along with its database: one import gives both.
@_exported import CustodianProcess
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import UnixSignals

/// What a domain service brings: its name, its schema's migrations, the services it calls, and its methods.
public struct ServiceDefinition: Sendable {
    public var name: String
    public var migrations: [Migration]
    /// Services this one calls; their replicas are found like the gateway finds them.
    public var calls: [String]
    /// Work the service does by itself on its database, besides answering calls.
    public var upkeep: [Upkeep]
    /// The data classes it deletes once they are older than configured (docs/operations.md, "Retention"); its
    /// migrations create `<schema>.retention_totals` (``Retention/totalsTable(schema:)``) when there are any.
    public var retention: [Retention]
    /// The columns whose values it seals with the deployment's sealing key, which `system.sealing` counts by key
    /// version and re-seals under the newest (docs/operations.md, "Rotating the sealing key").
    public var sealed: [SealedColumn]
    public var makeMethods: @Sendable (ServiceEnvironment) throws -> RPCMethods

    public init(
        name: String, migrations: [Migration] = [], calls: [String] = [], upkeep: [Upkeep] = [], retention: [Retention] = [],
        sealed: [SealedColumn] = [],
        makeMethods: @escaping @Sendable (ServiceEnvironment) throws -> RPCMethods = { _ in RPCMethods() }
    ) {
        self.name = name
        self.migrations = migrations
        self.calls = calls
        self.upkeep = upkeep
        self.retention = retention
        self.sealed = sealed
        self.makeMethods = makeMethods
    }
}

/// A service's own periodic work on its database (creating partitions ahead, for example): run once after the
/// migrations, before the replica answers calls, and again every `interval` while it runs. Every replica runs it,
/// so it must be safe to run twice at once (take an advisory lock). A failure is logged and tried again next time.
public struct Upkeep: Sendable {
    public var name: String
    public var interval: Duration
    public var work: @Sendable (PostgresClient, Logger) async throws -> Void

    public init(_ name: String, every interval: Duration, _ work: @escaping @Sendable (PostgresClient, Logger) async throws -> Void) {
        self.name = name
        self.interval = interval
        self.work = work
    }

    func runOnce(on database: PostgresClient, logger: Logger) async {
        do {
            // One trace per run, so that its statements are grouped rather than each a trace of its own.
            try await Spans.run("upkeep \(name)") { _ in try await work(database, logger) }
        } catch {
            logger.warning(
                "upkeep failed; it runs again later", metadata: ["upkeep": .string(name), "error": .string(DatabaseErrors.logDescription(error))])
        }
    }

    /// Until cancelled.
    func repeatedly(on database: PostgresClient, logger: Logger) async {
        while (try? await Task.sleep(for: interval)) != nil {
            await runOnce(on: database, logger: logger)
        }
    }
}

/// What a service's methods get to work with.
public struct ServiceEnvironment: Sendable {
    public let name: String
    public let instance: String
    public let configuration: Configuration
    public let database: Database
    /// Where reads that may be large and may lag a moment go (the researcher exports): the read-only replica
    /// `CUSTODIAN_DATABASE_READ_URL` names, else `database`.
    public let readDatabase: Database
    public let services: RPCClient
    public let logger: Logger

    public init(
        name: String, instance: String, configuration: Configuration, database: Database, readDatabase: Database? = nil,
        services: RPCClient, logger: Logger
    ) {
        self.name = name
        self.instance = instance
        self.configuration = configuration
        self.database = database
        self.readDatabase = readDatabase ?? database
        self.services = services
        self.logger = logger
    }
}

/// Runs one replica of a domain service: connects to PostgreSQL as the service's role, applies its migrations,
/// answers JSON-RPC on `<runtime dir>/<service>/<instance>.sock`, and shuts down gracefully on SIGTERM/SIGINT.
public enum ServiceHost {
    public static func main(_ definition: ServiceDefinition) async {
        do {
            if let (kind, arguments) = try ProbeKind.requested(in: Array(CommandLine.arguments.dropFirst())) {
                exit(await ServiceProbe.run(kind, service: definition.name, configuration: try Configuration(arguments: arguments)))
            }
            if let (command, arguments) = try SealingCommand.requested(in: Array(CommandLine.arguments.dropFirst())) {
                exit(await command.run(service: definition.name, configuration: try Configuration(arguments: arguments)))
            }
        } catch {
            FileHandle.standardError.write(Data("\(definition.name): \(error)\n".utf8))
            exit(2)
        }
        let (configuration, logger, tracing) = ProcessStart.begin(named: definition.name)
        do {
            try await run(definition, configuration: configuration, logger: logger, tracing: tracing)
        } catch {
            logger.critical("service stopped with an error", metadata: ["error": .string("\(error)")])
            exit(1)
        }
    }

    /// Everything a replica of `definition` answers: its own methods and the system ones.
    public static func methods(of definition: ServiceDefinition, environment: ServiceEnvironment) throws -> RPCMethods {
        var methods = try definition.makeMethods(environment)
        methods.merge(
            try SystemMethods.make(environment: environment, keepsRetentionTotals: !definition.retention.isEmpty, sealed: definition.sealed))
        return methods
    }

    /// Runs until SIGTERM or SIGINT, or until the calling task is cancelled (a test's harness passes no signals).
    public static func run(
        _ definition: ServiceDefinition, configuration: Configuration, logger: Logger, tracing: (any Service)? = nil,
        gracefulShutdownSignals: [UnixSignal] = [.sigterm, .sigint]
    ) async throws {
        let databaseURL = try DatabaseURL(configuration.require(RuntimeKey.databaseURL))
        let instance = ProcessStart.instanceName(configuration)
        let endpoint = try listenEndpoint(service: definition.name, instance: instance, configuration: configuration)
        let maximumFrameSize = try configuration.int(RuntimeKey.maximumFrameSize, default: RPCFraming.defaultMaximumFrameSize)

        let pool = PostgresClient(
            url: databaseURL, poolSize: try configuration.int(RuntimeKey.databasePoolSize, default: 10), logger: logger)
        let waitTimeout = try configuration.duration(RuntimeKey.databaseWaitTimeout, default: Database.defaultWaitTimeout)
        let database = Database(client: pool, waitTimeout: waitTimeout)
        let readPool = try configuration[RuntimeKey.databaseReadURL].map {
            PostgresClient(url: try DatabaseURL($0), poolSize: try configuration.int(RuntimeKey.databasePoolSize, default: 10), logger: logger)
        }
        let client = try RPCClient.platform(for: definition.calls, configuration: configuration, logger: logger)
        let environment = ServiceEnvironment(
            name: definition.name, instance: instance, configuration: configuration, database: database,
            readDatabase: readPool.map { Database(client: $0, waitTimeout: waitTimeout) }, services: client, logger: logger)

        let methods = try methods(of: definition, environment: environment)
        let server = RPCServer(
            configuration: .init(
                endpoint: endpoint, maximumFrameSize: maximumFrameSize, tls: try RPCTLS(configuration: configuration),
                // Its own replicas too: `<service> --probe` in a pod holds only the service's certificate.
                allowedCallers: Platform.callers[definition.name].map { $0.union([definition.name]) }),
            methods: methods, logger: logger, errorMapper: { DatabaseErrors.rpcError(for: $0, logger: logger) })
        let migrated = MigratedService(
            server: server, runner: MigrationRunner(schema: definition.name, migrations: definition.migrations),
            upkeep: definition.upkeep
                + (try definition.retention.compactMap { try $0.upkeep(schema: definition.name, configuration: configuration) }),
            database: pool, logger: logger)

        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: pool),
            .init(service: client),
            .init(service: migrated),
        ]
        if let readPool { services.insert(.init(service: readPool), at: 1) }
        // First, so that it stops last and exports the spans the others finished.
        if let tracing { services.insert(.init(service: tracing), at: 0) }
        if let watch = ParentWatch(configuration: configuration) {
            services.append(.init(service: watch, successTerminationBehavior: .gracefullyShutdownGroup))
        }
        var groupConfiguration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: gracefulShutdownSignals, logger: logger)
        // A part that does not finish its graceful shutdown must not keep the process alive.
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(20)
        groupConfiguration.maximumCancellationDuration = .seconds(5)
        let group = ServiceGroup(configuration: groupConfiguration)
        logger.info(
            "starting",
            metadata: ["instance": .string(instance), "endpoint": .string(endpoint.description), "database": .string(databaseURL.description)])
        try await group.run()
    }

    static func listenEndpoint(service: String, instance: String, configuration: Configuration) throws -> Endpoint {
        if let listen = configuration[RuntimeKey.listen] { return try Endpoint(listen) }
        let runtime = RuntimeDirectory(configuration: configuration)
        return try Endpoint("unix:\(runtime.socketPath(service: service, instance: instance))")
    }

}

/// Runs the migrations once the database client is running, then the upkeep once, then serves RPC while the
/// upkeep repeats.
struct MigratedService: Service {
    let server: RPCServer
    let runner: MigrationRunner
    let upkeep: [Upkeep]
    let database: PostgresClient
    let logger: Logger

    func run() async throws {
        // The database may still be starting (compose, `custodian up`): retry for a while before giving up.
        var attempt = 0
        while true {
            do {
                try await runner.run(on: database, logger: logger)
                break
            } catch {
                attempt += 1
                if attempt >= 30 || Task.isCancelled { throw error }
                logger.warning(
                    "migrations failed; retrying",
                    metadata: ["error": .string(DatabaseErrors.logDescription(error)), "attempt": .stringConvertible(attempt)])
                try await Task.sleep(for: .seconds(1))
            }
        }
        for upkeep in upkeep { await upkeep.runOnce(on: database, logger: logger) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for upkeep in upkeep {
                group.addTask { [database, logger] in await upkeep.repeatedly(on: database, logger: logger) }
            }
            try await server.run()
            group.cancelAll()
        }
    }
}
