import Logging
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// A connection ``Database`` lends: its queries fail when PostgreSQL closes the connection under them, where
/// postgres-nio's would wait for ever.
///
/// postgres-nio (1.33) writes a query to its channel without a promise for the write, so a query sent on a connection
/// that has just closed is dropped with its result never completed: the caller waits for ever. A connection closes
/// when PostgreSQL stops (a fast shutdown ends every backend, `docker compose restart postgres`), when a commit fails
/// after the statement's CommandComplete (an error postgres-nio does not expect), and the pool can still lend one that
/// closed a moment ago. A call that waited for ever was answered 504 by the gateway after its whole deadline, with
/// nothing in the service's log; now it fails at once, or within ``closedCheckInterval``, as the database being
/// unavailable (503 with `Retry-After`).
public struct DatabaseConnection: Sendable {
    /// The connection itself, for what only it offers; its queries have no such guard.
    public let underlying: PostgresConnection

    /// How often a query that is still waiting checks whether its connection closed.
    static let closedCheckInterval: TimeAmount = .milliseconds(200)

    init(_ connection: PostgresConnection) {
        self.underlying = connection
    }

    /// Runs `query` and collects its rows (decoded as from a `PostgresRowSequence`).
    @discardableResult
    public func query(_ query: PostgresQuery, logger: Logger, file: String = #fileID, line: Int = #line) async throws -> DatabaseRows {
        let connection = underlying
        return try await Self.guarded(connection) {
            var collected: [PostgresRow] = []
            for try await row in try await connection.query(query, logger: logger, file: file, line: line) { collected.append(row) }
            return DatabaseRows(rows: collected)
        }
    }

    /// Runs a prepared statement and collects its rows.
    public func execute<Statement: PostgresPreparedStatement>(_ statement: Statement, logger: Logger) async throws -> [Statement.Row]
    where Statement.Row: Sendable {
        let connection = underlying
        return try await Self.guarded(connection) {
            var rows: [Statement.Row] = []
            for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
            return rows
        }
    }

    /// Runs `work` (queries on `connection`) in a task of its own and returns what it gives, unless the connection is
    /// closed first: then it throws ``DatabaseUnavailable/connectionClosed`` and leaves behind a task that postgres-nio
    /// may never end. That task holds only the lost query.
    static func guarded<Value: Sendable>(
        _ connection: PostgresConnection, _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        if connection.isClosed { throw DatabaseUnavailable.connectionClosed }
        let outcome = Outcome<Value>()
        let task = Task {
            outcome.finish(await Result(catching: work))
        }
        // A timer on the connection's loop, not a sleeping task: it costs little and every query sets one.
        let check = connection.eventLoop.scheduleRepeatedTask(initialDelay: closedCheckInterval, delay: closedCheckInterval) { _ in
            if connection.isClosed { outcome.finish(.failure(DatabaseUnavailable.connectionClosed)) }
        }
        defer { check.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedContinuation { continuation in outcome.wait(continuation) }.get()
        } onCancel: {
            task.cancel()
        }
    }

    /// The first result wins: the work's, or the connection's closing.
    final class Outcome<Value: Sendable>: Sendable {
        private enum State {
            case waiting(CheckedContinuation<Result<Value, any Error>, Never>?)
            case finished(Result<Value, any Error>)
            case delivered
        }

        private let state = NIOLockedValueBox(State.waiting(nil))

        func finish(_ result: Result<Value, any Error>) {
            let continuation: CheckedContinuation<Result<Value, any Error>, Never>? = state.withLockedValue { state in
                switch state {
                case .waiting(let continuation?):
                    state = .delivered
                    return continuation
                case .waiting(nil):
                    state = .finished(result)
                    return nil
                case .finished, .delivered:
                    return nil
                }
            }
            continuation?.resume(returning: result)
        }

        func wait(_ continuation: CheckedContinuation<Result<Value, any Error>, Never>) {
            let ready: Result<Value, any Error>? = state.withLockedValue { state in
                switch state {
                case .waiting:
                    state = .waiting(continuation)
                    return nil
                case .finished(let result):
                    state = .delivered
                    return result
                case .delivered:
                    preconditionFailure("waited twice")
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
