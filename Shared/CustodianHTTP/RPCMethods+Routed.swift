import CustodianJSON
import CustodianRPC

extension RPCMethods {
    /// Registers a method the gateway routes HTTP requests to and renders the result of as JSON, as it is: any
    /// encodable result will do (the descriptor says `JSONValue`, which is what the gateway reads).
    public mutating func register<Result: Encodable & Sendable>(
        routed method: RPCMethod<HTTPInput, JSONValue>, requires: PrincipalRequirement? = nil, work: Work = .brief,
        _ handler: @escaping @Sendable (HTTPInput, CallContext) async throws -> Result
    ) {
        register(method.name, input: HTTPInput.self, requires: requires, work: work, handler)
    }
}
