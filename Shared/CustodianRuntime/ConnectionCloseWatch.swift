import NIOCore
import PostgresNIO
import Synchronization

/// Fails what waits on a PostgreSQL connection once the connection closes: postgres-nio (1.33) writes a query to its
/// channel without a promise for the write, so a query written after the channel closed is dropped and its result
/// never completes. ``DatabaseConnection`` runs the query in a task of its own and awaits a promise that either the
/// task or this watch completes.
///
/// Why this is exact, not a timer: NIO removes a closed channel's handlers in the same event-loop turn in which it
/// completes the channel's `closeFuture`, and only a write that reaches the channel after its handlers are gone is
/// dropped. So a query that is lost was either registered here before that turn (and the turn's callback fails it) or
/// after it (and finds the connection closed when it registers).
///
/// One `closeFuture` callback per connection, not per query: a pooled connection lives for millions of queries,
/// and callbacks on its future would pile up until it closed.
final class ConnectionCloseWatch: Sendable {
    static let shared = ConnectionCloseWatch()

    private struct Watched {
        var waiters: [UInt64: @Sendable (any Error) -> Void] = [:]
    }

    private struct State {
        var connections: [ObjectIdentifier: Watched] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    /// A registration; ``end(_:)`` it once the wait is over.
    struct Waiter {
        fileprivate let connection: ObjectIdentifier
        fileprivate let id: UInt64
    }

    /// Registers `closed`, which is called with ``DatabaseUnavailable/connectionClosed`` when `connection` closes
    /// (at once when it already has), unless the waiter ended before.
    func begin(_ connection: PostgresConnection, closed: @escaping @Sendable (any Error) -> Void) -> Waiter {
        let key = ObjectIdentifier(connection)
        let (waiter, firstSight) = state.withLock { state in
            state.nextWaiter &+= 1
            let firstSight = state.connections[key] == nil
            state.connections[key, default: Watched()].waiters[state.nextWaiter] = closed
            return (Waiter(connection: key, id: state.nextWaiter), firstSight)
        }
        if firstSight {
            // Runs at once (on the connection's loop) when the connection has already closed.
            connection.closeFuture.whenComplete { _ in self.closed(key) }
        }
        return waiter
    }

    func end(_ waiter: Waiter) {
        state.withLock { state in _ = state.connections[waiter.connection]?.waiters.removeValue(forKey: waiter.id) }
    }

    private func closed(_ key: ObjectIdentifier) {
        let waiters = state.withLock { state in state.connections.removeValue(forKey: key)?.waiters.values }
        for closed in waiters.map(Array.init) ?? [] { closed(DatabaseUnavailable.connectionClosed) }
    }
}
