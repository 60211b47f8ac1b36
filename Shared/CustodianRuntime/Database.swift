import CustodianRPC
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import _ConnectionPoolModule

/// A service's PostgreSQL, as its methods use it. Three things set it apart from the bare pool:
///
/// - Nobody waits long for a connection. While PostgreSQL is down or restarting, the pool queues requests until
///   it can connect again; a call that cannot get a connection within ``waitTimeout`` gives up with
///   ``DatabaseUnavailable``, which clients get as 503 with `Retry-After` (``DatabaseErrors``), and calls succeed
///   again by themselves once the pool reconnects.
/// - Transactions throw what their body threw, not a wrapper, so that a method's `RPCError` reaches its caller.
/// - Success means committed. postgres-nio speaks the extended query protocol, in which PostgreSQL sends a statement's
///   CommandComplete before it commits the statement's implicit transaction (at the Sync that follows), and
///   postgres-nio ends the query at CommandComplete. A backend terminated in between, as a fast shutdown does to every
///   backend (`docker compose restart postgres`), rolls the write back after its caller saw it succeed: a 2xx for a
///   write that is gone. So a statement that may write (``SQLText/mayWrite(_:)``) runs between BEGIN and COMMIT,
///   whose CommandComplete PostgreSQL sends only once the commit is durable, and a COMMIT that PostgreSQL answers
///   with ROLLBACK (the transaction had failed) is an error, not a success.
public struct Database: Sendable {
    /// The pool; for the few places that need it whole (migrations, provisioning).
    public let client: PostgresClient
    public let waitTimeout: Duration

    public static let defaultWaitTimeout: Duration = .milliseconds(1500)

    public init(client: PostgresClient, waitTimeout: Duration = Database.defaultWaitTimeout) {
        self.client = client
        self.waitTimeout = waitTimeout
    }

    /// Runs `query` and collects its rows, which the caller decodes as from a `PostgresRowSequence`
    /// (`for try await (a, b) in rows.decode((A, B).self)`).
    /// A statement that may write runs in a transaction of its own, so that its success means it was committed.
    @discardableResult
    public func query(_ query: PostgresQuery, logger: Logger, file: String = #fileID, line: Int = #line) async throws -> DatabaseRows {
        try await withConnection { connection in
            try await Self.committed(if: SQLText.mayWrite(query.sql), on: connection, logger: logger) {
                try await connection.query(query, logger: logger, file: file, line: line)
            }
        }
    }

    /// Runs a prepared statement (parsed once per connection, then only bound and executed: one round trip; a statement
    /// that may write takes two more, BEGIN and COMMIT) and collects its rows.
    public func execute<Statement: PostgresPreparedStatement>(_ statement: Statement, logger: Logger) async throws -> [Statement.Row]
    where Statement.Row: Sendable {
        try await withConnection { connection in
            try await Self.committed(if: SQLText.mayWrite(Statement.sql), on: connection, logger: logger) {
                try await connection.execute(statement, logger: logger)
            }
        }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws; its error is
    /// rethrown as it was.
    public func withTransaction<Result: Sendable>(
        logger: Logger, file: String = #file, line: Int = #line,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (DatabaseConnection) async throws -> sending Result
    ) async throws -> sending Result {
        try await withConnection(isolation: isolation) { connection in
            try await Self.committed(if: true, on: connection, logger: logger, isolation: isolation) { try await body(connection) }
        }
    }

    /// Runs `body` between BEGIN and COMMIT when `transaction` is true, else as it is. Returns only once COMMIT
    /// answered COMMIT; rolls back and rethrows what `body` threw.
    static func committed<Result: Sendable>(
        if transaction: Bool, on connection: DatabaseConnection, logger: Logger,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> sending Result
    ) async throws -> sending Result {
        guard transaction else { return try await body() }
        try await connection.query("BEGIN", logger: logger)
        let result: Result
        do {
            result = try await body()
        } catch {
            // The connection may be gone with the error; then PostgreSQL rolled back already (and the ROLLBACK fails at once).
            if !connection.isClosed { _ = try? await connection.query("ROLLBACK", logger: logger) }
            throw error
        }
        let commit = try await connection.result("COMMIT", logger: logger)
        // A transaction that failed answers COMMIT with ROLLBACK instead of an error.
        guard commit.metadata.command == "COMMIT" else { throw TransactionRolledBack(command: commit.metadata.command) }
        return result
    }

    /// Lends a connection to `body`, waiting at most ``waitTimeout`` for one.
    ///
    /// The pool offers no lease with a timeout, so a child task holds the lease and hands the connection over;
    /// `body` runs here, in the caller's isolation, and the child returns the connection once it is done.
    public func withConnection<Result: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (DatabaseConnection) async throws -> sending Result
    ) async throws -> sending Result {
        let client = self.client
        let handOver = AsyncStream<PostgresConnection>.makeStream()
        let done = AsyncStream<Never>.makeStream()
        // Ends the hand-over without a connection when the wait is over; a no-op once one was handed over. A timer
        // on an event loop costs far less than a sleeping task, and every query sets one.
        let timer = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: Self.timeAmount(waitTimeout)) {
            handOver.continuation.finish()
        }
        return try await withThrowingTaskGroup(of: Void.self, isolation: isolation) { group in
            group.addTask {
                do {
                    try await client.withConnection { connection in
                        handOver.continuation.yield(connection)
                        handOver.continuation.finish()
                        // Held until the body is done (or the wait was given up and the group cancelled).
                        for await _ in done.stream {}
                    }
                } catch {
                    handOver.continuation.finish()
                    throw error
                }
            }
            var connections = handOver.stream.makeAsyncIterator()
            guard let connection = await connections.next(isolation: isolation) else {
                timer.cancel()
                group.cancelAll()
                // The lease may have failed rather than timed out: report what the pool said.
                while let next = await group.nextResult(isolation: isolation) {
                    if case .failure(let error) = next, !(error is CancellationError), !(error is ConnectionPoolError) { throw error }
                }
                throw DatabaseUnavailable.noConnection(waited: waitTimeout)
            }
            timer.cancel()
            defer {
                done.continuation.finish()
            }
            // The pool can lend a connection that closed a moment ago (PostgreSQL restarting): the call is answered as the
            // database being unavailable without trying it.
            if connection.isClosed { throw DatabaseUnavailable.connectionClosed }
            return try await body(DatabaseConnection(connection))
        }
    }
}

extension Database {
    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

/// Rows of a query, collected: an `AsyncSequence` of `PostgresRow`, so postgres-nio's `decode` applies.
public struct DatabaseRows: AsyncSequence, Sendable {
    public typealias Element = PostgresRow
    public let rows: [PostgresRow]

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: IndexingIterator<[PostgresRow]>
        public mutating func next() async throws -> PostgresRow? { base.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: rows.makeIterator()) }
}

/// A transaction ended without a commit although no statement in it failed as far as the caller saw: PostgreSQL
/// answered COMMIT with ROLLBACK.
public struct TransactionRolledBack: Error, CustomStringConvertible {
    public var command: String
    public var description: String { "COMMIT was answered \(command): the transaction was rolled back" }
}

/// No connection to PostgreSQL could be had in time.
public enum DatabaseUnavailable: Error, CustomStringConvertible {
    case noConnection(waited: Duration)
    /// The pool lent a connection that had closed.
    case connectionClosed

    public var description: String {
        switch self {
        case .noConnection(let waited): "no database connection within \(waited)"
        case .connectionClosed: "the database connection had closed"
        }
    }
}

/// What database failures mean to a client, and how they are logged: the one place that knows PostgreSQL's errors.
///
/// PostgreSQL's messages quote the values they refused (`JSON data, line 1: {"a":…`), so a database error is
/// logged by its SQLSTATE and kind only, never by its message, detail or query.
public enum DatabaseErrors {
    /// Seconds a client is asked to wait while the database is unavailable.
    public static let retryAfterSeconds = 2

    /// The error a caller gets for a database failure, or nil for errors that are not the database's.
    public static func rpcError(for error: any Error, logger: Logger) -> RPCError? {
        switch error {
        case let error as PostgresDecodingError:
            // A row that does not decode is our bug; the cell's bytes (which PostgreSQL's error carries) stay out of the log.
            logger.error("database row did not decode", metadata: ["error": .string(logDescription(error))])
            return .internal()
        case is DatabaseUnavailable, is ConnectionPoolError:
            logger.warning("database unavailable", metadata: ["error": .string(logDescription(error))])
            return unavailable
        case is TransactionRolledBack:
            // Nothing was stored, and the caller must not think otherwise; a retry (uploads are idempotent) may succeed.
            logger.error("transaction rolled back at commit", metadata: ["error": .string(logDescription(error))])
            return unavailable
        case let error as PSQLError:
            switch classify(error) {
            case .unavailable:
                logger.warning("database unavailable", metadata: ["error": .string(logDescription(error))])
                return unavailable
            case .badValue:
                // A value the checks before it let through (they should not): the client's request, not our failure.
                logger.warning("database refused a value", metadata: ["error": .string(logDescription(error))])
                return RPCError.badRequest("A value in the request cannot be stored", reason: "unstorable_value")
            case .other:
                logger.error("database error", metadata: ["error": .string(logDescription(error))])
                return .internal()
            }
        default:
            return nil
        }
    }

    static let unavailable = RPCError(
        .unavailable, reason: "database_unavailable", message: "The database is temporarily unavailable; try again shortly",
        retryAfter: retryAfterSeconds)

    enum Kind: Equatable { case unavailable, badValue, other }

    static func classify(_ error: PSQLError) -> Kind {
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            // 08: connection exception; 53: insufficient resources (too many connections); 57P0x: shutting down,
            // crashed, starting up; 40001/40P01: serialization failure and deadlock, which a retry resolves.
            if state.hasPrefix("08") || state.hasPrefix("53") || state.hasPrefix("57P") || state == "40001" || state == "40P01" {
                return .unavailable
            }
            // 22: data exception (a value out of range, a character the encoding lacks, text that is not JSON).
            if state.hasPrefix("22") { return .badValue }
            return .other
        case .connectionError, .serverClosedConnection, .uncleanShutdown, .clientClosedConnection, .poolClosed:
            return .unavailable
        default:
            return .other
        }
    }

    /// An error as logs may show it: for PostgreSQL, its kind and SQLSTATE, without message, detail or query.
    public static func logDescription(_ error: any Error) -> String {
        switch error {
        case let error as PSQLError:
            let state = error.serverInfo?[.sqlState].map { " SQLSTATE \($0)" } ?? ""
            return "PSQLError(\(error.code)\(state)) at \(error.file ?? "?"):\(error.line.map(String.init) ?? "?")"
        case let error as PostgresTransactionError:
            return "PostgresTransactionError("
                + [error.beginError, error.closureError, error.commitError, error.rollbackError]
                .compactMap { $0.map(logDescription) }.joined(separator: ", ") + ")"
        case let error as ConnectionPoolError:
            return "ConnectionPoolError(\(error))"
        case let error as PostgresDecodingError:
            return
                "PostgresDecodingError(\(error.code), column \(error.columnIndex) \(error.columnName) of type \(error.postgresType) as \(error.targetType)) at \(error.file):\(error.line)"
        default:
            return String(reflecting: error)
        }
    }
}
