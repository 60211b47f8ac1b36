import NIOCore
import NIOPosix
import Synchronization

/// A few pipelined connections to one replica, opened when needed and replaced when they close.
/// A replica that refuses connections is left alone for a moment, so callers go elsewhere at once.
final class EndpointPool: Sendable {
    let endpoint: Endpoint
    private let settings: RPCClient.Settings
    private let eventLoopGroup: any EventLoopGroup
    private let state = Mutex(State())

    private struct State {
        var connections: [RPCConnection] = []
        var connecting: EventLoopFuture<RPCConnection>?
        var downUntil: NIODeadline?
        var closed = false
    }

    private enum Next {
        case use(RPCConnection)
        case wait(EventLoopFuture<RPCConnection>)
        case fail(any Error)
    }

    init(endpoint: Endpoint, settings: RPCClient.Settings, eventLoopGroup: any EventLoopGroup) {
        self.endpoint = endpoint
        self.settings = settings
        self.eventLoopGroup = eventLoopGroup
    }

    /// False while the replica is considered down after a failed connect.
    var isAvailable: Bool {
        state.withLock { state in
            guard let downUntil = state.downUntil else { return true }
            return downUntil <= .now() || !state.connections.isEmpty
        }
    }

    func connection() async throws -> RPCConnection {
        var started: EventLoopPromise<RPCConnection>?
        let next: Next = state.withLock { state in
            if state.closed {
                return .fail(RPCTransportError.connectFailed(endpoint: endpoint.description, reason: "client is shut down"))
            }
            state.connections.removeAll { !$0.isUsable }
            // A connection on the caller's own event loop first: sending and hearing back then need no thread
            // hand-over. Otherwise the least busy one, and another connection (on the caller's loop) while
            // there is room for one and every connection is busy or elsewhere.
            let here = MultiThreadedEventLoopGroup.currentEventLoop
            let local = here.flatMap { loop in
                state.connections.filter { $0.eventLoop === loop }.min { $0.inFlight < $1.inFlight }
            }
            let best = local.flatMap { $0.inFlight < settings.callsBeforeAnotherConnection ? $0 : nil }
                ?? state.connections.min { $0.inFlight < $1.inFlight }
            let wantsAnother = state.connections.count < settings.connectionsPerEndpoint
                && (best == nil || best!.inFlight >= settings.callsBeforeAnotherConnection || (here != nil && local == nil))
            if wantsAnother && state.connecting == nil {
                if let downUntil = state.downUntil, downUntil > .now(), best == nil {
                    return .fail(RPCTransportError.connectFailed(endpoint: endpoint.description, reason: "replica marked down after a failed connect"))
                }
                // The connect starts once the lock is released: its completion may run at once, on this thread,
                // and takes the lock itself.
                let promise = (here ?? eventLoopGroup.any()).makePromise(of: RPCConnection.self)
                started = promise
                state.connecting = promise.futureResult
            }
            if let best { return .use(best) }
            return .wait(state.connecting!)
        }
        if let started { startConnecting(completing: started) }
        switch next {
        case .use(let connection): return connection
        case .wait(let future): return try await future.get()
        case .fail(let error): throw error
        }
    }

    /// Connects on the promise's loop (the caller's, when it runs on one).
    private func startConnecting(completing promise: EventLoopPromise<RPCConnection>) {
        let future = RPCConnection.connect(
            to: endpoint, maximumFrameSize: settings.maximumFrameSize, timeout: settings.connectTimeout, eventLoop: promise.futureResult.eventLoop)
        future.whenComplete { result in
            let orphan: RPCConnection? = self.state.withLock { state in
                state.connecting = nil
                switch result {
                case .success(let connection):
                    state.downUntil = nil
                    if state.closed { return connection }
                    state.connections.append(connection)
                case .failure:
                    state.downUntil = .now() + self.settings.downInterval
                }
                return nil
            }
            orphan?.close()
            promise.completeWith(result)
        }
    }

    /// Forgets a replica whose calls failed at the transport level.
    func markDown() {
        state.withLock { $0.downUntil = .now() + settings.downInterval }
    }

    func close() {
        let connections = state.withLock { state in
            state.closed = true
            defer { state.connections.removeAll() }
            return state.connections
        }
        for connection in connections { connection.close() }
    }
}
