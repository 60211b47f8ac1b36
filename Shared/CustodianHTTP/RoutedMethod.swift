import CustodianRPC

/// A method the gateway routes HTTP requests to, declared with the types its handler takes and returns
/// (docs/rpc.md, "Typed routed methods"). The route table names it (the result's type says how the gateway answers),
/// the service registers its handler with it, tests call it with a typed input.
///
/// On the wire the input is the request as the gateway forwards it (``HTTPInput``), which the typed input reads itself
/// from in the service (``RoutedInput``): the gateway's forwarding path does no work for the types.
public struct RoutedMethod<Input: RoutedInput, Result: RoutedResult>: Sendable, CustomStringConvertible {
    /// `service.area.verb`: the first part names the service that answers it.
    public let name: String
    /// Whether a call that may have run may be sent again.
    public let retry: RPCRetry

    public init(_ name: String, retry: RPCRetry = .unsafe) {
        precondition(name.contains("."), "an RPC method's name starts with its service: \(name)")
        self.name = name
        self.retry = retry
    }

    public var service: String { String(name.prefix { $0 != "." }) }

    public var description: String { name }

    /// The method called with a typed input, which goes as the request that reads as it: tests, other services.
    public var typed: RPCMethod<Input, Result> { RPCMethod(name, retry: retry) }

    /// The method called as the gateway calls it, with a request as it came: for tests of what the decoding refuses.
    public var forwarded: RPCMethod<HTTPInput, Result> { RPCMethod(name, retry: retry) }
}

/// What a route names: a method's name, whether it may be retried, and what its result is.
public protocol RouteTarget: Sendable {
    associatedtype Result: RoutedResult
    var name: String { get }
    var retry: RPCRetry { get }
    var service: String { get }
}

extension RoutedMethod: RouteTarget {}

/// A method not converted to a typed input yet: it takes the ``HTTPInput`` itself.
extension RPCMethod: RouteTarget where Input == HTTPInput, Output: RoutedResult {
    public typealias Result = Output
}
