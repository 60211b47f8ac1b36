import CustodianHTTP
import CustodianJSON
import CustodianRPC

/// The routes service's methods: checking a signed request, which the gateway calls on its own (the `signature`
/// scheme, docs/geotag.md), and those it routes.
public enum RoutesMethods {
    /// The consumer that signed the request, as a principal of kind `consumer`; 401 with a reason of its own for
    /// each way a signature fails.
    public static let consumersVerify = RPCMethod<SignatureCheck, Principal>("routes.consumers.verify")

    // The geotag API (docs/geotag.md) and its admin routes; typed (docs/rpc.md, "Typed routed methods").
    public static let consumersCreate = RoutedMethod<CreateConsumerRequest, CreatedConsumer>("routes.consumers.create")
    public static let consumersList = RoutedMethod<SyntheticQuery, ConsumerList>("routes.consumers.list", retry: .safe)
    /// Idempotent: a second revocation finds nothing and says so.
    public static let consumersRevoke = RoutedMethod<ConsumerByKey, ErasureReceipt>("routes.consumers.revoke", retry: .safe)
    public static let routeDelete = RoutedMethod<RouteByID, Empty>("routes.route.delete")
    public static let routeGet = RoutedMethod<RouteByID, FetchedRoute>("routes.route.get", retry: .safe)
    public static let routeLookup = RoutedMethod<RouteLookup, FetchedRoute>("routes.route.lookup", retry: .safe)
    public static let routeStore = RoutedMethod<RouteUpload, StoredRoute>("routes.route.store")
}

/// What the gateway sends to have a signed request checked: everything the canonical string is made of,
/// the body as its digest. The secret never leaves this service.
public struct SignatureCheck: Codable, Sendable {
    public var key: String
    public var method: String
    /// The request target as sent: path and query, not decoded.
    public var path: String
    public var timestamp: String
    public var bodySha256: String
    public var signature: String

    public init(key: String, method: String, path: String, timestamp: String, bodySha256: String, signature: String) {
        self.key = key
        self.method = method
        self.path = path
        self.timestamp = timestamp
        self.bodySha256 = bodySha256
        self.signature = signature
    }
}
