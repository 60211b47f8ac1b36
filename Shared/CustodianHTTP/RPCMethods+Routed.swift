import CustodianJSON
import CustodianRPC

extension RPCMethods {
    /// Registers the handler of a typed routed method. The request the gateway forwards is read into `Input` straight
    /// from the frame's tree, in the words of the input's API (``RoutedInput/decoding``), before the handler runs.
    ///
    /// `beforeRefusingInput`: checks the caller's credential before an input that cannot be read is answered, for a
    /// method that checks its credential itself (an opaque token): a stranger then learns nothing about the checks of the
    /// body, and a client gets 401/403 before 422, as the API always answered.
    public mutating func register<Input, Result>(
        _ method: RoutedMethod<Input, Result>, requires: PrincipalRequirement? = nil, work: Work = .brief,
        beforeRefusingInput check: (@Sendable (CallContext) async throws -> Void)? = nil,
        _ handler: @escaping @Sendable (Input, CallContext) async throws -> Result
    ) {
        register(method.name, reading: JSONValueDecoder.Reading<JSONValue>(), requires: requires, work: work) { request, context in
            let input: Input
            do {
                input = try Input.decoding.decode(Input.self, from: request)
            } catch {
                try await check?(context)
                throw error
            }
            return try await handler(input, context)
        }
    }

    /// Registers a routed method not converted to a typed input yet, whose result the gateway renders as JSON: any
    /// encodable result will do (the descriptor says `JSONValue`, which is what the gateway reads).
    public mutating func register<Result: Encodable & Sendable>(
        routed method: RPCMethod<HTTPInput, JSONValue>, requires: PrincipalRequirement? = nil, work: Work = .brief,
        _ handler: @escaping @Sendable (HTTPInput, CallContext) async throws -> Result
    ) {
        register(method.name, reading: HTTPInput.reading, requires: requires, work: work, handler)
    }

    /// Registers the handler of a routed method not converted to a typed input yet whose result is a raw reply or a
    /// streamed page (or JSON).
    public mutating func register<Output>(
        _ method: RPCMethod<HTTPInput, Output>, requires: PrincipalRequirement? = nil, work: Work = .brief,
        _ handler: @escaping @Sendable (HTTPInput, CallContext) async throws -> Output
    ) {
        register(method.name, reading: HTTPInput.reading, requires: requires, work: work, handler)
    }
}

extension HTTPInput {
    /// Every routed call's input, read by its own reader called directly rather than through the protocol.
    static var reading: JSONValueDecoder.Reading<HTTPInput> { JSONValueDecoder.Reading(reader: { HTTPInput(json: $0) }) }
}

extension RPCClient {
    /// Calls a routed method with a typed input, sent as the request that reads as it (tests, other services).
    public func call<Input, Result>(
        _ method: RoutedMethod<Input, Result>, input: Input, context: CallContext,
        timeout: Duration? = nil
    ) async throws -> Result {
        try await call(method.typed, input: input, context: context, timeout: timeout)
    }
}
