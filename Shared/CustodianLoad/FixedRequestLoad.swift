import CustodianRPC
import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One fixed request over keep-alive connections, each sending the next as soon as its answer is in (the closed loop
/// wrk runs), every latency in an HdrHistogram: the split tax's load (`custodian bench`). The flows' client,
/// AsyncHTTPClient, spends more on a request than a small request costs a server (a task, its hand-overs, a body
/// stream), so that a benchmark of small requests through it measured mostly itself.
public enum FixedRequestLoad {
    public struct Target: Sendable {
        public var host: String
        public var port: Int
        /// Set for HTTPS.
        public var tls: TLSConfiguration?
        public var method: HTTPMethod
        public var path: String
        public var body: String
        /// The answer's status every request should get; any other counts as an error.
        public var expectedStatus: Int

        public init(url: String, tls: TLSConfiguration?, method: HTTPMethod, path: String, body: String, expectedStatus: Int) throws {
            guard let components = URLComponents(string: url), let host = components.host,
                let scheme = components.scheme, scheme == "http" || scheme == "https"
            else { throw SetupError("not an http(s) URL: \(url)") }
            self.host = host
            self.port = components.port ?? (scheme == "https" ? 443 : 80)
            self.tls = scheme == "https" ? (tls ?? TLSConfiguration.makeClientConfiguration()) : nil
            self.method = method
            self.path = path
            self.body = body
            self.expectedStatus = expectedStatus
        }
    }

    /// Runs `connections` connections for `duration` and sums them up.
    public static func run(
        _ target: Target, connections: Int, duration: Duration,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> LatencySummary {
        let context = try target.tls.map { try NIOSSLContext(configuration: $0) }
        let started = ContinuousClock.now
        let deadline = NIODeadline.now() + TimeAmount(duration)
        let results = try await withThrowingTaskGroup(of: Recorder.Tally.self) { tasks in
            for _ in 0..<connections {
                tasks.addTask { try await runConnection(target, tls: context, until: deadline, group: group) }
            }
            var all = Recorder.Tally()
            for try await tally in tasks { all.add(tally) }
            return all
        }
        let elapsed = ContinuousClock.now - started
        return LatencySummary(results, seconds: elapsed.seconds)
    }

    private static func runConnection(
        _ target: Target, tls: NIOSSLContext?, until deadline: NIODeadline,
        group: any EventLoopGroup
    ) async throws -> Recorder.Tally {
        let eventLoop = group.next()
        let finished = eventLoop.makePromise(of: Recorder.Tally.self)
        let request = RequestParts(target)
        let channel = try await ClientBootstrap(group: eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        // A name is sent and checked; an address literal cannot be (SNI carries names only).
                        let isAddress = (try? SocketAddress(ipAddress: target.host, port: 0)) != nil
                        try channel.pipeline.syncOperations.addHandler(
                            try NIOSSLClientHandler(context: tls, serverHostname: isAddress ? nil : target.host))
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(
                        ClosedLoopHandler(request: request, expectedStatus: target.expectedStatus, deadline: deadline, finished: finished))
                }
            }
            .connect(host: target.host, port: target.port).get()
        do {
            return try await finished.futureResult.get()
        } catch {
            try? await channel.close()
            throw error
        }
    }

    /// The request, made once.
    struct RequestParts: Sendable {
        var head: HTTPRequestHead
        var body: ByteBuffer

        init(_ target: Target) {
            body = ByteBuffer(string: target.body)
            head = HTTPRequestHead(
                version: .http1_1, method: target.method, uri: target.path,
                headers: [
                    "Host": "\(target.host):\(target.port)", "Content-Type": "application/json", "Content-Length": String(body.readableBytes),
                ])
        }
    }

    /// Sends the request, waits for its whole answer, records it and sends again until the deadline; then closes.
    final class ClosedLoopHandler: ChannelInboundHandler {
        typealias InboundIn = HTTPClientResponsePart
        typealias OutboundOut = HTTPClientRequestPart

        private let request: RequestParts
        private let expectedStatus: Int
        private let deadline: NIODeadline
        private let finished: EventLoopPromise<Recorder.Tally>
        private var tally = Recorder.Tally()
        private var sentAt = NIODeadline.now()
        private var status = 0
        private var done = false

        init(request: RequestParts, expectedStatus: Int, deadline: NIODeadline, finished: EventLoopPromise<Recorder.Tally>) {
            self.request = request
            self.expectedStatus = expectedStatus
            self.deadline = deadline
            self.finished = finished
        }

        func channelActive(context: ChannelHandlerContext) {
            send(context: context)
            context.fireChannelActive()
        }

        private func send(context: ChannelHandlerContext) {
            sentAt = .now()
            context.write(wrapOutboundOut(.head(request.head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(request.body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                status = Int(head.status.code)
            case .body:
                break
            case .end:
                let now = NIODeadline.now()
                let microseconds = UInt64(max(0, (now - sentAt).nanoseconds) / 1000)
                tally.record(.answered("request", status, expected: expectedStatus), microseconds: microseconds)
                if now < deadline {
                    send(context: context)
                } else {
                    finish(context: context)
                }
            }
        }

        private func finish(context: ChannelHandlerContext) {
            guard !done else { return }
            done = true
            finished.succeed(tally)
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            if !done {
                done = true
                finished.fail(SetupError("the server closed a connection of the benchmark"))
            }
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            if !done {
                done = true
                finished.fail(error)
            }
            context.close(promise: nil)
        }
    }
}
