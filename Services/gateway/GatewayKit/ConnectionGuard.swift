import CustodianRPC
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Prometheus
import Synchronization

/// How long the gateway waits for each part of a request, how many connections it holds, and how large a
/// request head may be (docs/operations.md, "Slow and surplus clients").
public struct ConnectionLimits: Sendable {
    /// Open connections beyond this are closed as soon as they are accepted.
    public var maximumConnections: Int
    /// From a new connection (TLS handshake included), or the first byte of a further request on it, to the end
    /// of the request's head.
    public var headerTimeout: TimeAmount
    /// From the end of the head to the end of the body.
    public var bodyTimeout: TimeAmount
    /// How long a kept-alive connection may wait for its next request.
    public var idleTimeout: TimeAmount
    /// The request line and headers together, in bytes (and any one of them).
    public var maximumHeaderSize: Int

    public init(
        maximumConnections: Int = 10_000, headerTimeout: TimeAmount = .seconds(20), bodyTimeout: TimeAmount = .seconds(60),
        idleTimeout: TimeAmount = .seconds(60), maximumHeaderSize: Int = 16 * 1024
    ) {
        self.maximumConnections = maximumConnections
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.maximumHeaderSize = maximumHeaderSize
    }
}

/// HTTP/1.1 served as Hummingbird's `HTTP1Channel` serves it, with two watchers around the codec: one on the
/// bytes (counts connections, sees a request begin) and one on the parsed parts (sees its head and body end and
/// the response go out). Together they close connections that are surplus or that take too long.
struct GuardedHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let limits: ConnectionLimits
    let census: ConnectionCensus
    let styles: UnmatchedPathStyles

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let watch = ConnectionWatch(limits: limits, census: census)
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(RawTrafficWatcher(watch: watch))
            var decoderLimits = NIOHTTPDecoderLimitConfiguration()
            decoderLimits.maxHeaderFieldSize = limits.maximumHeaderSize
            decoderLimits.maxHeaderListSize = limits.maximumHeaderSize
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(), withDecoderLimitConfiguration: decoderLimits)
            try pipeline.addHandler(MalformedHeadResponder(watch: watch, styles: styles, maximumHeaderSize: limits.maximumHeaderSize))
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandler(RequestPhaseWatcher(watch: watch))
            // Hummingbird's own: `Connection: close` and closing idle connections on graceful shutdown.
            try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    /// On the connection's own event loop: the request, its RPC call (on a connection of the same loop) and the
    /// answer then pass without a thread hand-over. Large bodies leave the loop (`RouteForwarder`).
    func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await handleHTTP(asyncChannel: value, logger: logger)
        }
    }
}

/// Counts of the gateway's connections, shared by all of them; `/metrics` shows them.
final class ConnectionCensus: Sendable {
    let open = Atomic<Int>(0)
    let refused: Counter
    let closedForHeader: Counter
    let closedForBody: Counter
    let closedIdle: Counter

    init(refused: Counter, closedForHeader: Counter, closedForBody: Counter, closedIdle: Counter) {
        self.refused = refused
        self.closedForHeader = closedForHeader
        self.closedForBody = closedForBody
        self.closedIdle = closedIdle
    }
}

/// Where one connection's current request is; touched only on the connection's event loop.
final class ConnectionWatch {
    enum Phase {
        /// Waiting for the first byte of a request (kept alive after a response).
        case idle(since: NIODeadline)
        /// Bytes of a request arrived (or the connection is new); its head is not complete yet.
        case head(since: NIODeadline)
        /// The head arrived; the body has not ended yet.
        case body(since: NIODeadline)
        /// The request is complete and the gateway is answering: the service call's own deadline bounds it.
        case answering
    }

    let limits: ConnectionLimits
    let census: ConnectionCensus
    var phase: Phase = .head(since: .now())
    var counted = false
    var requestEnded = false
    var responseEnded = false
    var check: Scheduled<Void>?
    /// The first bytes of the current request, enough for the path of its request line (to answer a head that cannot
    /// be read in the style of its API).
    var requestStart: [UInt8] = []
    static let requestStartLimit = 512

    /// The path of the current request's line, as far as it arrived; "/" when none did.
    var requestPath: String {
        let line = requestStart.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: false)
        guard line.count > 1 else { return "/" }
        let target = line[1].prefix { $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        return String(decoding: target, as: UTF8.self)
    }

    init(limits: ConnectionLimits, census: ConnectionCensus) {
        self.limits = limits
        self.census = census
    }

    /// What is overdue now, if anything.
    func overdue(now: NIODeadline) -> Phase? {
        switch phase {
        case .idle(let since) where now - since > limits.idleTimeout: phase
        case .head(let since) where now - since > limits.headerTimeout: phase
        case .body(let since) where now - since > limits.bodyTimeout: phase
        default: nil
        }
    }
}

/// Sits before the HTTP codec (after TLS): admits or refuses the connection, notices the first byte of each
/// request, and checks once a second whether the current phase has run out of time.
final class RawTrafficWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let watch: ConnectionWatch
    static let checkInterval: TimeAmount = .seconds(1)

    init(watch: ConnectionWatch) {
        self.watch = watch
    }

    func channelActive(context: ChannelHandlerContext) {
        let open = watch.census.open.wrappingAdd(1, ordering: .relaxed).newValue
        watch.counted = true
        guard open <= watch.limits.maximumConnections else {
            watch.census.refused.increment()
            context.close(promise: nil)
            return
        }
        watch.phase = .head(since: .now())
        scheduleCheck(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .idle = watch.phase {
            watch.phase = .head(since: .now())
            watch.requestStart.removeAll(keepingCapacity: true)
        }
        if case .head = watch.phase, watch.requestStart.count < ConnectionWatch.requestStartLimit {
            let bytes = unwrapInboundIn(data)
            watch.requestStart += bytes.readableBytesView.prefix(ConnectionWatch.requestStartLimit - watch.requestStart.count)
        }
        context.fireChannelRead(data)
    }

    private func stop() {
        watch.check?.cancel()
        watch.check = nil
        if watch.counted {
            watch.counted = false
            watch.census.open.wrappingSubtract(1, ordering: .relaxed)
        }
    }

    private func scheduleCheck(context: ChannelHandlerContext) {
        watch.check = context.eventLoop.assumeIsolated().scheduleTask(in: Self.checkInterval) {
            self.runCheck(context: context)
        }
    }

    private func runCheck(context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        switch watch.overdue(now: .now()) {
        case .head:
            // Nothing of a response is under way yet, so the client can be told why.
            watch.census.closedForHeader.increment()
            let answer = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: answer))).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        case .body:
            watch.census.closedForBody.increment()
            context.close(promise: nil)
        case .idle:
            watch.census.closedIdle.increment()
            context.close(promise: nil)
        case .answering, nil:
            scheduleCheck(context: context)
        }
    }
}

/// Sits after the HTTP codec: moves the connection's phase along as the request's head and end come in and the
/// response's end goes out.
final class RequestPhaseWatcher: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let watch: ConnectionWatch

    init(watch: ConnectionWatch) {
        self.watch = watch
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            watch.requestEnded = false
            watch.responseEnded = false
            watch.phase = .body(since: .now())
        case .body:
            break
        case .end:
            watch.requestEnded = true
            watch.phase = watch.responseEnded ? .idle(since: .now()) : .answering
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            watch.responseEnded = true
            // An answer given before the body was read (a 401, a 413) leaves the body to be drained, within its time.
            if watch.requestEnded { watch.phase = .idle(since: .now()) }
        }
        context.write(data, promise: promise)
    }
}
