import CustodianJSON
import CustodianRPC

extension RPCMethods {
    /// Registers a method the gateway routes HTTP requests to and renders the result of as JSON, as it is: any
    /// encodable result will do (the descriptor says `JSONValue`, which is what the gateway reads).
    public mutating func register<Result: Encodable & Sendable>(
        routed method: RPCMethod<HTTPInput, JSONValue>, requires: PrincipalRequirement? = nil, work: Work = .brief,
        _ handler: @escaping @Sendable (HTTPInput, CallContext) async throws -> Result
    ) {
        register(method.name, reading: HTTPInput.reading, requires: requires, work: work, handler)
    }

    /// Registers the handler of a routed method whose result is a raw reply or a streamed page (or JSON).
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
