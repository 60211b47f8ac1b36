import Hummingbird
import Logging
import NIOCore
import CustodianRPC
import Synchronization
import Tracing

/// Hummingbird's request context plus the request id every log line and RPC call carries, and the socket peer the
/// client's address is read from.
public struct GatewayRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public var requestID: String
    public let remoteAddress: SocketAddress?
    /// The admin a route or console page found behind the request, for the request's log line.
    let admin = AdminOnLogLine()
    /// The request's span, for events on the way (a rate limit refusing it); set by ``GatewayMiddleware``.
    var span: (any Span)?

    public init(source: Source) {
        self.coreContext = .init(source: source)
        self.requestID = ""
        self.remoteAddress = source.channel.remoteAddress
    }
}

/// Who made an admin request, as its log line names them: the identity's label and id, never its token. Set where the
/// request is authenticated, read by the middleware that writes the line; shared by the context's copies.
final class AdminOnLogLine: Sendable {
    private let name = Mutex<String?>(nil)

    func record(_ principal: Principal?) {
        guard let principal, principal.kind == .admin else { return }
        name.withLock { $0 = principal.name.map { "\($0) (\(principal.id))" } ?? principal.id }
    }

    var text: String? { name.withLock { $0 } }
}
