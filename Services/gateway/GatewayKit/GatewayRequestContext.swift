import Hummingbird
import Logging

/// Hummingbird's request context plus the request id every log line and RPC call carries.
public struct GatewayRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var requestID: String

    public init(source: Source) {
        self.coreContext = .init(source: source)
        self.requestID = ""
    }
}
