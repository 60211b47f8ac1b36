import Hummingbird
import Logging
import NIOCore

/// Hummingbird's request context plus the request id every log line and RPC call carries, and the socket peer the
/// client's address is read from.
public struct GatewayRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public var requestID: String
    public let remoteAddress: SocketAddress?

    public init(source: Source) {
        self.coreContext = .init(source: source)
        self.requestID = ""
        self.remoteAddress = source.channel.remoteAddress
    }
}
