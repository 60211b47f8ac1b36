import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// A TLS connection to the platform's gateway that sends bytes exactly as given, for requests no HTTP client
/// would send (a broken chunked body, half a request) and for watching when the gateway closes the connection.
final class RawConnection: Sendable {
    private let channel: any Channel
    private let received: Collected

    private final class Collected: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let bytes = Mutex<[UInt8]>([])
        let closed = Mutex<ContinuousClock.Instant?>(nil)

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            bytes.withLock { $0.append(contentsOf: buffer.readableBytesView) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            closed.withLock { $0 = .now }
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }

    private init(channel: any Channel, received: Collected) {
        self.channel = channel
        self.received = received
    }

    /// Connects to `platform`'s gateway over TLS, trusting its certificate.
    static func open(to platform: RunningPlatform) async throws -> RawConnection {
        guard let url = URLComponents(string: platform.baseURL), let port = url.port else { throw PlatformError("no port in \(platform.baseURL)") }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(platform.dataDirectory + "/tls/cert.pem"))
        let context = try NIOSSLContext(configuration: tls)
        let received = Collected()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: nil))
                    try channel.pipeline.syncOperations.addHandler(received)
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return RawConnection(channel: channel, received: received)
    }

    func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text)).get()
    }

    /// What arrived so far, as text.
    var text: String { String(decoding: received.bytes.withLock { $0 }, as: UTF8.self) }

    /// When the gateway closed the connection, if it did.
    var closedAt: ContinuousClock.Instant? { received.closed.withLock { $0 } }

    /// Waits until `condition` holds or `timeout` passes; returns whether it held.
    func wait(upTo timeout: Duration, until condition: (RawConnection) -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(self) { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return condition(self)
    }

    func close() {
        channel.close(promise: nil)
    }
}
