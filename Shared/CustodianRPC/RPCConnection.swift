import CustodianJSON
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// Why a call got no answer from the peer.
public enum RPCTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing was sent: the endpoint refused or did not accept the connection.
    case connectFailed(endpoint: String, reason: String)
    /// Nothing was sent: the connection had closed before the request was written to it.
    case notSent(endpoint: String)
    /// The request may have reached the peer, but the connection closed before the response came.
    case connectionClosed(endpoint: String)
    case deadlineExceeded(endpoint: String)
    /// The response could not be read.
    case malformedResponse(String)

    public var description: String {
        switch self {
        case .connectFailed(let endpoint, let reason): "could not connect to \(endpoint): \(reason)"
        case .notSent(let endpoint): "the connection to \(endpoint) had closed before the request was sent"
        case .connectionClosed(let endpoint): "connection to \(endpoint) closed before the response arrived"
        case .deadlineExceeded(let endpoint): "no response from \(endpoint) before the deadline"
        case .malformedResponse(let problem): "malformed RPC response: \(problem)"
        }
    }

    /// True when the request certainly did not run, so another replica may take it whatever the method.
    public var surelyDidNotRun: Bool {
        switch self {
        case .connectFailed, .notSent: true
        case .connectionClosed, .deadlineExceeded, .malformedResponse: false
        }
    }
}

/// One client connection that carries many calls at once and matches responses to calls by id.
final class RPCConnection: Sendable {
    let endpoint: Endpoint
    private let channel: any Channel
    private let handler: NIOLoopBound<RPCClientHandler>
    private let nextID = Atomic<Int64>(1)

    private let state: RPCConnectionState

    private init(endpoint: Endpoint, channel: any Channel, handler: NIOLoopBound<RPCClientHandler>, state: RPCConnectionState) {
        self.endpoint = endpoint
        self.channel = channel
        self.handler = handler
        self.state = state
    }

    /// Over TCP with `tls`, the server's certificate must name `serverName` (the service meant).
    static func connect(
        to endpoint: Endpoint, maximumFrameSize: Int, timeout: TimeAmount, tls: RPCTLS? = nil, serverName: String = "",
        eventLoop: any EventLoop
    ) -> EventLoopFuture<RPCConnection> {
        let state = RPCConnectionState()
        let secure: RPCTLS? = if case .tcp = endpoint { tls } else { nil }
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let secure {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: secure.clientContext, serverHostname: serverName))
                    }
                    try RPCFraming.addHandlers(to: channel.pipeline.syncOperations, maximumFrameSize: maximumFrameSize)
                    try channel.pipeline.syncOperations.addHandler(RPCClientHandler(endpoint: endpoint.description, state: state))
                }
            }
        let connected: EventLoopFuture<any Channel>
        switch endpoint {
        case .unix(let path): connected = bootstrap.connect(unixDomainSocketPath: path)
        case .tcp(let host, let port): connected = bootstrap.connect(host: host, port: port)
        }
        return connected.flatMapErrorThrowing { error in
            throw RPCTransportError.connectFailed(endpoint: endpoint.description, reason: "\(error)")
        }.flatMapThrowing { channel in
            let handler = try channel.pipeline.syncOperations.handler(type: RPCClientHandler.self)
            return RPCConnection(endpoint: endpoint, channel: channel, handler: NIOLoopBound(handler, eventLoop: channel.eventLoop), state: state)
        }
    }

    /// The loop the connection's I/O runs on: a caller running there sends and hears back without a thread hand-over.
    var eventLoop: any EventLoop { channel.eventLoop }

    /// Open, and its server has not said goodbye.
    var isUsable: Bool { channel.isActive && !state.goodbyeReceived.load(ordering: .relaxed) }

    /// Calls waiting for a response, for choosing the least busy connection.
    var inFlight: Int { callsInFlight.load(ordering: .relaxed) }
    private let callsInFlight = Atomic<Int>(0)

    func allocateID() -> RPCID {
        .number(nextID.wrappingAdd(1, ordering: .relaxed).oldValue)
    }

    /// Sends a request frame and waits for the response frame with the same id.
    func call(id: RPCID, frame: ByteBuffer, deadline: NIODeadline) async throws -> RPCResponseFrame {
        callsInFlight.wrappingAdd(1, ordering: .relaxed)
        defer { callsInFlight.wrappingSubtract(1, ordering: .relaxed) }
        let handler = self.handler
        let eventLoop = self.eventLoop
        return try await withTaskCancellationHandler {
            // Resumed exactly once: by whichever of answer, deadline, cancellation or closing takes the call out of the
            // handler's pending calls first (or at once, when it cannot be sent).
            try await withUnsafeThrowingContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                if eventLoop.inEventLoop {
                    handler.value.send(id: id, frame: frame, deadline: deadline, continuation: continuation)
                } else {
                    eventLoop.execute {
                        handler.value.send(id: id, frame: frame, deadline: deadline, continuation: continuation)
                    }
                }
            }
        } onCancel: {
            eventLoop.execute { handler.value.cancel(id: id) }
        }
    }

    func close() {
        channel.close(promise: nil)
    }
}

/// Lives on the connection's event loop: keeps the calls waiting for a response.
final class RPCClientHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private struct Pending {
        var continuation: UnsafeContinuation<RPCResponseFrame, any Error>
        var deadline: NIODeadline
    }

    private let endpoint: String
    private let state: RPCConnectionState
    private var pending: [RPCID: Pending] = [:]
    private var context: ChannelHandlerContext?
    private var closed = false
    /// One timer for the connection, set for the earliest deadline of its calls: a timer per call cost every call a
    /// scheduling and a cancellation on the loop. Calls mostly share one timeout, so a new call's deadline is rarely the
    /// earliest and the timer stays as it is.
    private var deadlineTimer: (deadline: NIODeadline, scheduled: Scheduled<Void>)?
    private var flushScheduled = false

    init(endpoint: String, state: RPCConnectionState) {
        self.endpoint = endpoint
        self.state = state
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func send(id: RPCID, frame: ByteBuffer, deadline: NIODeadline, continuation: UnsafeContinuation<RPCResponseFrame, any Error>) {
        guard let context, !closed else {
            continuation.resume(throwing: RPCTransportError.notSent(endpoint: endpoint))
            return
        }
        pending[id] = Pending(continuation: continuation, deadline: deadline)
        if deadlineTimer.map({ deadline < $0.deadline }) ?? true { armDeadlineTimer(for: deadline, context: context) }
        context.write(wrapOutboundOut(frame), promise: nil)
        flushSoon(context: context)
    }

    /// Calls sent during one turn of the loop go out in one write: the flush waits for the tasks queued on the loop
    /// (other requests' calls among them) and costs a call nothing when it is alone.
    private func flushSoon(context: ChannelHandlerContext) {
        guard !flushScheduled else { return }
        flushScheduled = true
        let loopBoundSelf = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let handler = loopBoundSelf.value
            handler.flushScheduled = false
            handler.context?.flush()
        }
    }

    private func armDeadlineTimer(for deadline: NIODeadline, context: ChannelHandlerContext) {
        deadlineTimer?.scheduled.cancel()
        let loopBoundSelf = NIOLoopBound(self, eventLoop: context.eventLoop)
        let scheduled = context.eventLoop.scheduleTask(deadline: deadline) { loopBoundSelf.value.failOverdueCalls() }
        deadlineTimer = (deadline, scheduled)
    }

    /// Fails the calls whose deadline passed, and sets the timer for the next one.
    private func failOverdueCalls() {
        deadlineTimer = nil
        let now = NIODeadline.now()
        let overdue = pending.filter { $0.value.deadline <= now }
        for id in overdue.keys { fail(id: id, with: RPCTransportError.deadlineExceeded(endpoint: endpoint)) }
        if let next = pending.values.map(\.deadline).min(), let context { armDeadlineTimer(for: next, context: context) }
    }

    func cancel(id: RPCID) {
        fail(id: id, with: CancellationError())
    }

    private func fail(id: RPCID, with error: any Error) {
        guard let call = pending.removeValue(forKey: id) else { return }
        call.continuation.resume(throwing: error)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        // Parsed once, here: the id routes it, and the caller reads its result from the same tree.
        let parsed = try? frame.withUnsafeReadableBytes { bytes in try JSONValue.parse(bytes) }
        guard case .object(let fields)? = parsed else {
            // A response we cannot read means the peer and we disagree about the protocol: give up on this connection.
            context.close(promise: nil)
            return
        }
        if fields["method"] == .string(RPCGoodbye.method) {
            state.goodbyeReceived.store(true, ordering: .relaxed)
            return
        }
        guard let id = fields["id"].flatMap(RPCID.init(json:)) else {
            // A response we cannot route (an error about a frame we sent that the peer could not parse)
            // means the peer and we disagree about the protocol: give up on this connection.
            context.close(promise: nil)
            return
        }
        guard let call = pending.removeValue(forKey: id) else { return }  // Its caller gave up already.
        call.continuation.resume(returning: RPCResponseFrame(fields: fields))
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed = true
        deadlineTimer?.scheduled.cancel()
        deadlineTimer = nil
        let calls = pending
        pending.removeAll()
        for call in calls.values {
            call.continuation.resume(throwing: RPCTransportError.connectionClosed(endpoint: endpoint))
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// A response as the connection read it: its members.
struct RPCResponseFrame: Sendable {
    var fields: [String: JSONValue]

    /// The error the replica answered with; nil for a result.
    func error(service: String, method: String) throws -> RPCError? {
        guard let error = fields["error"], !error.isNull else { return nil }
        guard let object = try? JSONValueDecoder().decode(RPCErrorObject.self, from: error) else {
            throw RPCError.internal("service \(service) answered \(method) with an error of an unexpected shape")
        }
        return RPCError(object)
    }

    /// The result, read from the tree the connection parsed. A missing one is JSON's `null`, which only a `JSONValue`
    /// result may be.
    func result<Output: Decodable>(as type: Output.Type, service: String, method: String) throws -> Output {
        let result = fields["result"] ?? .null
        if result.isNull, Output.self != JSONValue.self {
            throw RPCError.internal("service \(service) answered \(method) without a result")
        }
        do {
            return try JSONValueDecoder().decode(Output.self, from: result)
        } catch {
            throw RPCError.internal("service \(service) answered \(method) with a result of an unexpected shape")
        }
    }
}

/// What the pool needs to know of a connection from outside its event loop.
final class RPCConnectionState: Sendable {
    let goodbyeReceived = Atomic<Bool>(false)
}
