/// One method of a service as both its callers and the service name it: its name on the wire, and the types of its
/// input and result, so that the compiler checks that a caller and the service agree (a renamed method or a changed
/// input breaks the build, not production). The descriptors live in `Shared/CustodianContracts`, one file per service.
public struct RPCMethod<Input: Codable & Sendable, Output: Codable & Sendable>: Sendable, CustomStringConvertible {
    /// `service.area.verb`: the first part names the service that answers it.
    public let name: String
    /// Whether a call that may have run may be sent again.
    public let retry: RPCRetry

    public init(_ name: String, retry: RPCRetry = .unsafe) {
        precondition(name.contains("."), "an RPC method's name starts with its service: \(name)")
        self.name = name
        self.retry = retry
    }

    /// The service that answers it.
    public var service: String { String(name.prefix { $0 != "." }) }

    public var description: String { name }
}

/// Whether a call may be sent again when it may have run: its replica went away after the call was sent and before
/// it answered. A call that surely did not run (it was never sent) may always be sent again.
public enum RPCRetry: Sendable {
    /// A read, or a write whose repeat changes nothing and answers the same (an upload stored once per body).
    case safe
    /// A write that a repeat would repeat, or answer differently (a second delete finds nothing).
    case unsafe
}

extension RPCClient {
    /// Calls `method` on one of its service's replicas.
    public func call<Input, Output>(
        _ method: RPCMethod<Input, Output>, input: Input, context: CallContext, timeout: Duration? = nil
    ) async throws -> Output {
        try await call(method.service, method.name, input: input, context: context, as: Output.self, timeout: timeout, retry: method.retry)
    }

    /// Calls a method that takes no input.
    public func call<Output>(_ method: RPCMethod<Empty, Output>, context: CallContext, timeout: Duration? = nil) async throws -> Output {
        try await call(method.service, method.name, input: Empty(), context: context, as: Output.self, timeout: timeout, retry: method.retry)
    }

    /// Calls a method every service answers (`system.*`) on one of `service`'s replicas.
    public func call<Output>(
        _ method: RPCMethod<Empty, Output>, on service: String, context: CallContext, timeout: Duration? = nil
    ) async throws -> Output {
        try await call(method, input: Empty(), on: service, context: context, timeout: timeout)
    }

    /// Calls a method every service answers (`system.*`) that takes an input, on one of `service`'s replicas.
    public func call<Input, Output>(
        _ method: RPCMethod<Input, Output>, input: Input, on service: String, context: CallContext, timeout: Duration? = nil
    ) async throws -> Output {
        try await call(service, method.name, input: input, context: context, as: Output.self, timeout: timeout, retry: method.retry)
    }
}

extension RPCMethods {
    /// Registers the handler of `method`; it takes the method's input and returns its result.
    public mutating func register<Input, Output>(
        _ method: RPCMethod<Input, Output>, requires: PrincipalRequirement? = nil, work: Work = .brief,
        _ handler: @escaping @Sendable (Input, CallContext) async throws -> Output
    ) {
        register(method.name, input: Input.self, requires: requires, work: work, handler)
    }
}
