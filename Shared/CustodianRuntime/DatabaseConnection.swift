import Logging
import NIOCore
import PostgresNIO

/// A connection ``Database`` lends: a query on it fails with ``DatabaseUnavailable/connectionClosed`` (503 with
/// `Retry-After`) when PostgreSQL closes the connection under it, where postgres-nio's own would wait for ever.
///
/// postgres-nio (1.33) writes a query to its channel without a promise for the write, so a query sent on a connection
/// that has just closed is dropped and its caller waits for ever. A connection closes when PostgreSQL stops (a fast
/// shutdown ends every backend: `docker compose restart postgres`), and that can fall between two statements of a
/// transaction. Such a call was answered 504 by the gateway after its whole deadline, with nothing in the service's
/// log, and kept its pool lease for ever.
public struct DatabaseConnection: Sendable {
    let connection: PostgresConnection

    init(_ connection: PostgresConnection) {
        self.connection = connection
    }

    /// Whether PostgreSQL or the pool closed the connection.
    public var isClosed: Bool { connection.isClosed }

    /// Runs `query` and collects its rows, which the caller decodes as from a `PostgresRowSequence`
    /// (`for try await (a, b) in rows.decode((A, B).self)`).
    @discardableResult
    public func query(_ query: PostgresQuery, logger: Logger, file: String = #fileID, line: Int = #line) async throws -> DatabaseRows {
        DatabaseRows(rows: try await result(query, logger: logger, file: file, line: line).rows)
    }

    /// Runs a prepared statement (parsed once per connection, then only bound and executed) and collects its rows.
    public func execute<Statement: PostgresPreparedStatement>(_ statement: Statement, logger: Logger) async throws -> [Statement.Row]
    where Statement.Row: Sendable {
        try await StatementSpan.run(sql: Statement.sql, statement: String(describing: Statement.self)) {
            try await executeInTask(statement, logger: logger)
        }
    }

    /// postgres-nio runs prepared statements with async calls only, so the call gets a task of its own (see
    /// `whenOpen`); a plain query needs none.
    private func executeInTask<Statement: PostgresPreparedStatement>(
        _ statement: Statement, logger: Logger
    ) async throws -> [Statement.Row] where Statement.Row: Sendable {
        let connection = connection
        let outcome = connection.eventLoop.makePromise(of: [Statement.Row].self)
        let task = Task {
            do {
                var rows: [Statement.Row] = []
                for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
                outcome.succeed(rows)
            } catch {
                outcome.fail(error)
            }
        }
        return try await withTaskCancellationHandler {
            try await whenOpen(outcome.futureResult)
        } onCancel: {
            task.cancel()
        }
    }

    /// A statement's rows and command tag (`COMMIT`, or `ROLLBACK` for the commit of a failed transaction).
    func result(_ query: PostgresQuery, logger: Logger, file: String = #fileID, line: Int = #line) async throws -> PostgresQueryResult {
        try await StatementSpan.run(sql: query.sql) {
            // postgres-nio's future-returning call, so that no task is needed (see `whenOpen`).
            let result: EventLoopFuture<PostgresQueryResult> = connection.query(query, logger: logger, file: file, line: line)
            return try await whenOpen(result)
        }
    }

    /// What `result` gives, unless the connection closes first: then ``DatabaseUnavailable/connectionClosed``. A
    /// query postgres-nio dropped never completes its future, which is then left behind.
    func whenOpen<Value: Sendable>(_ result: EventLoopFuture<Value>) async throws -> Value {
        let outcome = result.eventLoop.makePromise(of: Value.self)
        // The first completion wins: the query's, or the connection's closing; the second is ignored.
        let waiter = ConnectionCloseWatch.shared.begin(connection) { error in outcome.fail(error) }
        defer { ConnectionCloseWatch.shared.end(waiter) }
        result.cascade(to: outcome)
        return try await outcome.futureResult.get()
    }
}

extension DatabaseConnection {
    /// How many rows `statement` deletes or changes (a `DELETE`/`UPDATE`, given a `RETURNING 1` here) or returns (a
    /// `SELECT`), counted by the database rather than sent over: an erasure's receipt counts millions of readings.
    public func count(_ statement: PostgresQuery, logger: Logger) async throws -> Int {
        var query: PostgresQuery = "WITH counted AS ("
        query.sql += statement.sql
        if !statement.sql.hasPrefix("SELECT") { query.sql += " RETURNING 1" }
        query.sql += ") SELECT count(*)::bigint FROM counted"
        query.binds = statement.binds
        for try await count in try await self.query(query, logger: logger).decode(Int.self) { return count }
        return 0
    }
}
