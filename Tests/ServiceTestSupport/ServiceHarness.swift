import CustodianContracts
import CustodianHTTP
import CustodianRPC
import CustodianRuntime
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Testing

/// Services as `custodian up` runs them, without the gateway and without processes: each definition runs in the test
/// process on a socket of a temporary runtime directory, as its own role against a fresh database of the test
/// PostgreSQL, with its migrations applied; services that call each other find each other there. A test calls
/// their methods as whichever principal it likes, and reads the database as its owner.
public final class ServiceHarness: Sendable {
    /// Calls the services: the same client a service or the gateway uses.
    public let client: RPCClient
    /// The superuser's connection to the harness's database, for what a test checks in the tables.
    public let database: PostgresClient
    public let logger: Logger

    private init(client: RPCClient, database: PostgresClient, logger: Logger) {
        self.client = client
        self.database = database
        self.logger = logger
    }

    /// Runs `services` (which must include every service they call), passes the harness to `body` once each of them
    /// answers, and stops them afterwards. `settings` are added to every service's configuration.
    public static func run<Result: Sendable>(
        _ services: [ServiceDefinition], settings: [String: String] = [:],
        _ body: @Sendable (ServiceHarness) async throws -> Result
    ) async throws -> Result {
        var logger = Logger(label: "harness")
        logger.logLevel = ProcessInfo.processInfo.environment["CUSTODIAN_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        let names = services.map(\.name)
        let (adminURL, serviceURLs) = try await TestPostgres.shared.makeDatabase(for: names, logger: logger)
        // Short: a socket's path must stay under 108 bytes.
        let runtime = "/tmp/csh-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: runtime) }

        var base = settings
        base[RuntimeKey.runtimeDirectory] = runtime
        // Beside the whole suite a call may wait seconds for a database connection: that is load, not a refusal.
        base[RuntimeKey.databaseWaitTimeout] = base[RuntimeKey.databaseWaitTimeout] ?? "15s"
        base[RuntimeKey.sealingKey] = base[RuntimeKey.sealingKey] ?? Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let configuration = try Configuration(environment: base, arguments: [])
        let client = try RPCClient.platform(for: names, configuration: configuration, logger: logger)
        let database = PostgresClient(url: adminURL, poolSize: 2, logger: PostgresClient.quiet(logger))
        let harness = ServiceHarness(client: client, database: database, logger: logger)

        return try await withThrowingTaskGroup(of: Void.self) { group in
            for definition in services {
                var environment = base
                environment[RuntimeKey.databaseURL] = serviceURLs[definition.name]?.urlString
                environment[RuntimeKey.instance] = "harness"
                let serviceConfiguration = try Configuration(environment: environment, arguments: [])
                var serviceLogger = logger
                serviceLogger[metadataKey: "service"] = .string(definition.name)
                group.addTask { [serviceLogger] in
                    try await ServiceHost.run(definition, configuration: serviceConfiguration, logger: serviceLogger, gracefulShutdownSignals: [])
                }
            }
            group.addTask { try await client.run() }
            group.addTask { await database.run() }
            defer { group.cancelAll() }
            for name in names {
                try await waitForSocket(RuntimeDirectory(configuration: configuration).socketPath(service: name, instance: "harness"))
                try await waitForAnswer(from: name, client: client)
            }
            return try await body(harness)
        }
    }

    /// Migrations run before a service listens: its socket appearing means it is ready.
    private static func waitForSocket(_ path: String) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !FileManager.default.fileExists(atPath: path) {
            guard ContinuousClock.now < deadline else { throw HarnessError("no service listened on \(path) within 60 s") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The socket file exists from the bind, a moment before the replica listens: until it answers, a connection
    /// is refused (and a loaded machine makes that moment long).
    private static func waitForAnswer(from service: String, client: RPCClient) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            do {
                _ = try await client.call(SystemMethods.health, on: service, context: .background("harness", timeout: 10))
                return
            } catch {
                guard ContinuousClock.now < deadline else { throw HarnessError("\(service) did not answer within 60 s: \(error)") }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// Calls `method` as `principal` (or anonymously), as the gateway would for an authenticated request.
    public func call<Input, Output>(
        _ method: RPCMethod<Input, Output>, _ input: Input, as principal: Principal? = nil,
        credential: Credential? = nil
    ) async throws -> Output {
        let context = CallContext(
            requestID: "test-\(RequestID.random())", deadline: Date().addingTimeInterval(30),
            principal: principal, credential: credential, logger: logger)
        return try await client.call(method, input: input, context: context)
    }

    /// Calls a routed method with a typed input, as the gateway would call it with the request that reads as it.
    public func call<Input, Result>(
        _ method: RoutedMethod<Input, Result>, _ input: Input, as principal: Principal? = nil,
        credential: Credential? = nil
    ) async throws -> Result {
        try await call(method.typed, input, as: principal, credential: credential)
    }

    /// The first column of the first row of `query`, run as the database's owner.
    public func scalar<Value: PostgresDecodable & Sendable>(_ query: PostgresQuery, as type: Value.Type = Value.self) async throws -> Value? {
        let rows = try await database.query(query, logger: logger)
        for try await (value) in rows.decode(Value.self) { return value }
        return nil
    }
}

public struct HarnessError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The error a call ended with, for the checks on its code, message and Retry-After.
public func rpcError(_ call: () async throws -> some Any) async -> RPCError? {
    do {
        _ = try await call()
        return nil
    } catch let error as RPCError {
        return error
    } catch {
        Issue.record("not an RPC error: \(error)")
        return nil
    }
}
