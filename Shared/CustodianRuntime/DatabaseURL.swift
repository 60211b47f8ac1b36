import Foundation
import Logging
import PostgresNIO

/// A `postgres://user:password@host:port/database` URL.
public struct DatabaseURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String

    public init(host: String, port: Int, username: String, password: String?, database: String) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
    }

    public init(_ text: String) throws {
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme),
            let host = components.host, !host.isEmpty, let user = components.user, !user.isEmpty
        else {
            throw ConfigurationError(message: "a database URL looks like postgres://user:password@host:5432/database")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        self.init(
            host: host, port: components.port ?? 5432, username: user.removingPercentEncoding ?? user,
            password: components.password.map { $0.removingPercentEncoding ?? $0 },
            database: database.isEmpty ? user : database)
    }

    /// The same server and database, as another role.
    public func with(username: String, password: String?) -> DatabaseURL {
        DatabaseURL(host: host, port: port, username: username, password: password, database: database)
    }

    public var urlString: String {
        var components = URLComponents()
        components.scheme = "postgres"
        components.user = username
        components.password = password
        components.host = host
        components.port = port
        components.path = "/" + database
        return components.string ?? ""
    }

    /// Without the password, for logs.
    public var description: String {
        "postgres://\(username)@\(host):\(port)/\(database)"
    }

    public func clientConfiguration(poolSize: Int = 10) -> PostgresClient.Configuration {
        // Local and compose deployments reach PostgreSQL over loopback or a private network.
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: .disable)
        configuration.options.maximumConnections = poolSize
        // The pool arms a keep-alive and an idle timer each time a connection goes back to it, and a cancelled timer
        // holds its memory until it would have fired: at a thousand queries a second that is tens of MiB held for
        // a minute (docs/benchmarks.md, memory). Connections that stay open need no idle timer; one that the server
        // or the network closes is replaced by the pool, and a query that meets a dead one gets a 503 to retry.
        configuration.options.minimumConnections = poolSize
        configuration.options.keepAliveBehavior = nil
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }
}

extension PostgresClient {
    /// A client for `url`; it does nothing until its `run()` runs (in the service group).
    public convenience init(url: DatabaseURL, poolSize: Int = 10, logger: Logger) {
        self.init(configuration: url.clientConfiguration(poolSize: poolSize), backgroundLogger: logger)
    }

    /// Runs `body` with a client for `url` whose `run()` is going (it answers nothing before), for one-off work:
    /// provisioning, set-up, tests.
    public static func withClient<Result: Sendable>(
        url: DatabaseURL, poolSize: Int = 2, logger: Logger, _ body: @Sendable (PostgresClient) async throws -> Result
    ) async throws -> Result {
        let client = PostgresClient(url: url, poolSize: poolSize, logger: quiet(logger))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }

    /// A client's own logger for one that starts beside its first query: the pool warns when a lease races its
    /// start-up, which is harmless (the query waits for it).
    public static func quiet(_ logger: Logger) -> Logger {
        var quiet = logger
        quiet.logLevel = .error
        return quiet
    }
}
