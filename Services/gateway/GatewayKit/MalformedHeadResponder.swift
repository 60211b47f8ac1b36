import CustodianRPC
import NIOCore
import NIOHTTP1

/// Sits right after the HTTP/1.1 decoder: a request whose line and headers cannot be read (longer than
/// `CUSTODIAN_HTTP_MAX_HEADER_SIZE`, or not HTTP/1.1) gets a 400 like every other refusal — JSON in the style of
/// its path, with an `X-Request-Id` — instead of the empty one the HTTP server would send, and the connection closes
/// (nothing after the broken head can be trusted to be where a request begins). Once a head got through, errors
/// go on to the route, which answers them in the middle of a request.
final class MalformedHeadResponder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let watch: ConnectionWatch
    let styles: UnmatchedPathStyles
    let maximumHeaderSize: Int

    init(watch: ConnectionWatch, styles: UnmatchedPathStyles, maximumHeaderSize: Int) {
        self.watch = watch
        self.styles = styles
        self.maximumHeaderSize = maximumHeaderSize
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, case .head = watch.phase else {
            context.fireErrorCaught(error)
            return
        }
        let message =
            parserError == .headerOverflow
            ? "The request line and headers exceed \(maximumHeaderSize) bytes"
            : "The request is not valid HTTP/1.1"
        let style = styles.style(for: watch.requestPath)
        let body =
            style.errorBody(
                status: .badRequest, reason: parserError == .headerOverflow ? "header_too_large" : "malformed_http",
                message: message, details: nil
            ).jsonBytes + [UInt8(ascii: "\n")]
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: String(body.count))
        headers.add(name: "X-Request-Id", value: RequestID.random())
        headers.add(name: "Connection", value: "close")
        watch.phase = .answering
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
