import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle
import Synchronization

/// Answers JSON-RPC on one endpoint. Requests on a connection run concurrently and their responses go back
/// in the order they finish. On graceful shutdown it removes its socket file, stops accepting, tells each
/// client goodbye, answers requests that still arrive with `unavailable`/`shutting_down` (which callers
/// safely retry elsewhere), lets the calls in flight finish, and closes each connection once it is idle and
/// its clients had a moment to hear the goodbye.
public final class RPCServer: Service, Sendable {
    public struct Configuration: Sendable {
        public var endpoint: Endpoint
        public var maximumFrameSize: Int
        /// Calls one connection may have in flight; more are refused with `tooManyRequests`.
        public var maximumConcurrentCallsPerConnection: Int
        /// Mutual TLS on a TCP endpoint (required there when set); Unix sockets ignore it.
        public var tls: RPCTLS?
        /// With `tls`: the callers (names in their certificates) this service accepts; nil: any holder of a
        /// certificate of the cluster's CA.
        public var allowedCallers: Set<String>?

        public init(
            endpoint: Endpoint, maximumFrameSize: Int = RPCFraming.defaultMaximumFrameSize,
            maximumConcurrentCallsPerConnection: Int = 512, tls: RPCTLS? = nil, allowedCallers: Set<String>? = nil
        ) {
            self.endpoint = endpoint
            self.maximumFrameSize = maximumFrameSize
            self.maximumConcurrentCallsPerConnection = maximumConcurrentCallsPerConnection
            self.tls = tls
            self.allowedCallers = allowedCallers
        }
    }

    private let configuration: Configuration
    private let dispatcher: RPCDispatcher
    private let eventLoopGroup: any EventLoopGroup
    private let logger: Logger
    private let state = Mutex(State())
    /// Completed with the bound address once the server listens (tests bind `tcp://…:0`).
    private let boundAddress: Mutex<[CheckedContinuation<SocketAddress, any Error>]> = Mutex([])
    private let address: Mutex<Result<SocketAddress, any Error>?> = Mutex(nil)

    private struct State {
        var shuttingDown = false
        var connections: [ObjectIdentifier: ConnectionState] = [:]
    }

    private struct ConnectionState {
        var channel: any Channel
        var inFlight = 0
        /// Set once the goodbye had time to reach the client.
        var drained = false
    }

    /// How long after its goodbye a connection stays open to refuse requests already on their way.
    static let drainInterval: TimeAmount = .milliseconds(250)

    public init(
        configuration: Configuration,
        methods: RPCMethods,
        logger: Logger,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        errorMapper: @escaping @Sendable (any Error) -> RPCError? = { _ in nil }
    ) {
        self.configuration = configuration
        self.dispatcher = RPCDispatcher(methods: methods, logger: logger, errorMapper: errorMapper)
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
    }

    /// The address the server listens on, once it does.
    public func listeningAddress() async throws -> SocketAddress {
        if let result = address.withLock({ $0 }) { return try result.get() }
        return try await withCheckedThrowingContinuation { continuation in
            let ready = address.withLock { $0 }
            if let ready {
                continuation.resume(with: ready)
            } else {
                boundAddress.withLock { $0.append(continuation) }
                // The address may have been set between the two locks.
                if let ready = address.withLock({ $0 }) { resolveWaiters(with: ready) }
            }
        }
    }

    private func resolveWaiters(with result: Result<SocketAddress, any Error>) {
        let waiters = boundAddress.withLock { waiters in
            defer { waiters.removeAll() }
            return waiters
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    private func publish(_ result: Result<SocketAddress, any Error>) {
        address.withLock { $0 = result }
        resolveWaiters(with: result)
    }

    public func run() async throws {
        let serverChannel: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        do {
            serverChannel = try await bind()
        } catch {
            publish(.failure(error))
            throw error
        }
        if let local = serverChannel.channel.localAddress { publish(.success(local)) }
        logger.info("RPC server listening", metadata: ["endpoint": .string(configuration.endpoint.description)])

        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                try await serverChannel.executeThenClose { inbound in
                    for try await connection in inbound {
                        group.addTask { await self.serve(connection) }
                    }
                }
            }
        } onGracefulShutdown: {
            self.beginShutdown(serverChannel: serverChannel.channel)
        }
        removeSocketFile()
        logger.info("RPC server stopped", metadata: ["endpoint": .string(configuration.endpoint.description)])
    }

    private func bind() async throws -> NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never> {
        let maximumFrameSize = configuration.maximumFrameSize
        let tls: RPCTLS? = if case .tcp = configuration.endpoint { configuration.tls } else { nil }
        let allowedCallers = configuration.allowedCallers
        let bootstrap = ServerBootstrap(group: eventLoopGroup)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: false)
        let initializer: @Sendable (any Channel) -> EventLoopFuture<NIOAsyncChannel<ByteBuffer, ByteBuffer>> = { channel in
            channel.eventLoop.makeCompletedFuture {
                if let tls {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls.serverContext))
                    try channel.pipeline.syncOperations.addHandler(CallerCheck(allowed: allowedCallers))
                }
                try RPCFraming.addHandlers(to: channel.pipeline.syncOperations, maximumFrameSize: maximumFrameSize)
                return try NIOAsyncChannel(wrappingChannelSynchronously: channel)
            }
        }
        switch configuration.endpoint {
        case .unix(let path):
            try prepareSocketDirectory(for: path)
            let channel = try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true, childChannelInitializer: initializer)
            // Only this uid (the gateway and sibling services) may connect.
            _ = chmod(path, 0o600)
            return channel
        case .tcp(let host, let port):
            return try await bootstrap.bind(host: host, port: port, childChannelInitializer: initializer)
        }
    }

    private func prepareSocketDirectory(for path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    private func removeSocketFile() {
        if case .unix(let path) = configuration.endpoint {
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    private func beginShutdown(serverChannel: any Channel) {
        // The socket file goes first, so that the gateway's discovery stops offering this replica.
        removeSocketFile()
        serverChannel.close(promise: nil)
        let connections = state.withLock { state in
            state.shuttingDown = true
            return state.connections.map { ($0.key, $0.value.channel) }
        }
        for (key, channel) in connections { sayGoodbye(key, on: channel) }
    }

    private func sayGoodbye(_ key: ObjectIdentifier, on channel: any Channel) {
        var goodbye = channel.allocator.buffer(capacity: RPCGoodbye.frame.utf8.count)
        goodbye.writeString(RPCGoodbye.frame)
        channel.writeAndFlush(goodbye, promise: nil)
        channel.eventLoop.scheduleTask(in: Self.drainInterval) { self.drained(key) }
    }

    private func drained(_ key: ObjectIdentifier) {
        let closeNow: (any Channel)? = state.withLock { state in
            guard var connection = state.connections[key] else { return nil }
            connection.drained = true
            state.connections[key] = connection
            return connection.inFlight == 0 ? connection.channel : nil
        }
        closeNow?.close(promise: nil)
    }

    private func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        let key = ObjectIdentifier(connection.channel)
        // A connection accepted while shutting down is still served, in refusal mode: closing it at once
        // would lose a request the client may already have sent, without telling it whether it ran.
        let lateArrival = state.withLock { state in
            state.connections[key] = ConnectionState(channel: connection.channel)
            return state.shuttingDown
        }
        if lateArrival { sayGoodbye(key, on: connection.channel) }
        defer { _ = state.withLock { $0.connections.removeValue(forKey: key) } }

        do {
            // The connection's calls run on its event loop (`EventLoopTaskExecutor`); methods that compute for long leave it
            // (`RPCDispatcher`).
            try await withTaskExecutorPreference(EventLoopTaskExecutor(connection.channel.eventLoop)) {
                try await connection.executeThenClose { inbound, outbound in
                    try await withThrowingDiscardingTaskGroup { group in
                        for try await frame in inbound {
                            if let error = admit(key) {
                                if let response = refusal(for: frame, error: error) {
                                    try await outbound.write(response)
                                }
                                continue
                            }
                            group.addTask {
                                // A call runs on the loop, without a hand-over, however many others of the connection are
                                // in flight: it reads its input, waits for the database and writes a small answer,
                                // microseconds of CPU, and handing it to the global executor costs a thread wake-up, more
                                // than that (with wrk at 16 connections, a quarter of `devices`' CPU when calls beyond four
                                // left the loop; docs/benchmarks.md). A large frame, whose JSON takes milliseconds to
                                // read, and methods that compute for long (`RPCDispatcher`) leave it.
                                let answer =
                                    frame.readableBytes < OffLoop.largeBodySize
                                    ? await self.dispatcher.handle(frame)
                                    : await OffLoop.run { await self.dispatcher.handle(frame) }
                                if let response = answer {
                                    try? await outbound.write(self.fitting(response, answering: frame))
                                }
                                self.finishCall(key)
                            }
                        }
                    }
                }
            }
        } catch {
            logger.debug("RPC connection closed", metadata: ["error": .string("\(error)")])
        }
    }

    /// Why a call that just arrived is refused, or nil when it may run.
    private func admit(_ key: ObjectIdentifier) -> RPCError? {
        state.withLock { state in
            if state.shuttingDown {
                return .unavailable("the service is shutting down", reason: "shutting_down")
            }
            guard var connection = state.connections[key] else { return .unavailable("connection closing") }
            guard connection.inFlight < configuration.maximumConcurrentCallsPerConnection else {
                return RPCError(.tooManyRequests, reason: "too_many_calls", message: "too many concurrent calls on one connection")
            }
            connection.inFlight += 1
            state.connections[key] = connection
            return nil
        }
    }

    private func finishCall(_ key: ObjectIdentifier) {
        let closeNow: (any Channel)? = state.withLock { state in
            guard var connection = state.connections[key] else { return nil }
            connection.inFlight -= 1
            state.connections[key] = connection
            return connection.drained && connection.inFlight == 0 ? connection.channel : nil
        }
        closeNow?.close(promise: nil)
    }

    /// The response, or an error in its place when it is over the frame limit: the caller would close the
    /// connection on it, failing every other call that shares it.
    private func fitting(_ response: ByteBuffer, answering request: ByteBuffer) -> ByteBuffer {
        guard response.readableBytes > configuration.maximumFrameSize else { return response }
        let header = RPCDispatcher.header(of: request)
        logger.error(
            "RPC answer over the frame limit",
            metadata: [
                "method": .string(header?.method ?? "?"), "bytes": .stringConvertible(response.readableBytes),
            ])
        return dispatcher.encodeError(.internal("the answer is too large to send"), id: header?.id)
    }

    private func refusal(for frame: ByteBuffer, error: RPCError) -> ByteBuffer? {
        guard let header = RPCDispatcher.header(of: frame), !header.isNotification else { return nil }
        return dispatcher.encodeError(error, id: header.id)
    }
}
