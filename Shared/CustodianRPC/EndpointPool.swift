import NIOCore
import NIOPosix
import Synchronization

/// A few pipelined connections to one replica, opened when needed and replaced when they close.
/// A replica that refuses connections is left alone for a moment, so callers go elsewhere at once; so is one that
/// loses a call's connection, or lets calls time out twice running: it is ejected for `downInterval`, twice as long
/// each time it fails again (up to eight times), and the first call after that is its probe.
final class EndpointPool: Sendable {
    let endpoint: Endpoint
    /// The service the replica belongs to: over TLS, the name its certificate must show.
    private let service: String
    let settings: RPCClient.Settings
    private let eventLoopGroup: any EventLoopGroup
    private let state = Mutex(State())

    private struct State {
        var connections: [RPCConnection] = []
        var connecting: EventLoopFuture<RPCConnection>?
        var downUntil: NIODeadline?
        /// Calls that went wrong since the last answer; a timeout counts only from the second on.
        var failures = 0
        var timeouts = 0
        var ejectedUntil: NIODeadline?
        var closed = false
    }

    /// How a call on this replica went wrong.
    enum Failure {
        case timeout
        case connectionLost
    }

    private enum Next {
        case use(RPCConnection)
        case wait(EventLoopFuture<RPCConnection>)
        case fail(any Error)
    }

    init(endpoint: Endpoint, service: String, settings: RPCClient.Settings, eventLoopGroup: any EventLoopGroup) {
        self.endpoint = endpoint
        self.service = service
        self.settings = settings
        self.eventLoopGroup = eventLoopGroup
    }

    /// False while the replica is ejected, or considered down after a failed connect.
    var isAvailable: Bool {
        state.withLock { state in
            let now = NIODeadline.now()
            if let ejectedUntil = state.ejectedUntil, ejectedUntil > now { return false }
            guard let downUntil = state.downUntil else { return true }
            return downUntil <= now || !state.connections.isEmpty
        }
    }

    /// Calls waiting for an answer from this replica.
    var inFlight: Int {
        state.withLock { state in state.connections.reduce(0) { $0 + $1.inFlight } }
    }

    /// The replica answered: whatever went wrong before is forgiven.
    func recordAnswer() {
        state.withLock { state in
            guard state.failures > 0 || state.timeouts > 0 else { return }
            state.failures = 0
            state.timeouts = 0
            state.ejectedUntil = nil
        }
    }

    /// A call went wrong: the replica is ejected for a while, longer each time (a single timeout may be the call's
    /// own fault, so only a second one running counts). A replica ejected for timeouts also loses its connections:
    /// over a network that dropped packets they sit in TCP's retransmission backoff (seconds, growing to minutes)
    /// long after the replica is reachable again, so the call that probes it after the ejection must open a new one.
    func recordFailure(_ failure: Failure) {
        let stale: [RPCConnection] = state.withLock { state in
            if failure == .timeout {
                state.timeouts += 1
                guard state.timeouts >= 2 else { return [] }
            }
            state.failures += 1
            let factor = Int64(1) << min(state.failures - 1, 3)
            state.ejectedUntil = .now() + .nanoseconds(settings.downInterval.nanoseconds * factor)
            guard failure == .timeout else { return [] }
            defer { state.connections.removeAll() }
            return state.connections
        }
        for connection in stale { connection.close() }
    }

    /// What a call's failure says about the replica: a timeout or a lost connection counts against it, a call that was
    /// never sent does not (a refused connect marks it down in ``connection()``).
    func record(_ error: RPCTransportError) {
        switch error {
        case .deadlineExceeded: recordFailure(.timeout)
        case .connectionClosed, .malformedResponse: recordFailure(.connectionLost)
        case .connectFailed, .notSent: break
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
            var local: RPCConnection?
            if let here {
                for connection in state.connections where connection.eventLoop === here && connection.inFlight < (local?.inFlight ?? .max) {
                    local = connection
                }
            }
            let best =
                local.flatMap { $0.inFlight < settings.callsBeforeAnotherConnection ? $0 : nil }
                ?? state.connections.min { $0.inFlight < $1.inFlight }
            let wantsAnother =
                state.connections.count < settings.connectionsPerEndpoint
                && (best == nil || best!.inFlight >= settings.callsBeforeAnotherConnection || (here != nil && local == nil))
            if wantsAnother && state.connecting == nil {
                if let downUntil = state.downUntil, downUntil > .now(), best == nil {
                    return .fail(
                        RPCTransportError.connectFailed(endpoint: endpoint.description, reason: "replica marked down after a failed connect"))
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
            to: endpoint, maximumFrameSize: settings.maximumFrameSize, timeout: settings.connectTimeout, tls: settings.tls, serverName: service,
            eventLoop: promise.futureResult.eventLoop)
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

    func close() {
        let connections = state.withLock { state in
            state.closed = true
            defer { state.connections.removeAll() }
            return state.connections
        }
        for connection in connections { connection.close() }
    }
}
