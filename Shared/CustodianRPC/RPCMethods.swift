import CustodianJSON
import NIOCore

/// The methods a service answers, by name. Each handler gets its typed input and the caller's context.
public struct RPCMethods: Sendable {
    /// A request as the dispatcher read it: its `params` and its id.
    struct Request: Sendable {
        var params: JSONValue?
        var id: RPCID?
    }

    typealias Handler = @Sendable (_ request: Request, _ context: CallContext) async throws -> ByteBuffer

    /// How long a method keeps a CPU busy. Calls run on the event loop of the connection they came on, which saves
    /// thread hand-overs; a method that computes for long runs off it, so that it does not hold up the loop's other
    /// connections (see `EventLoopTaskExecutor`).
    public enum Work: Sendable {
        /// Reads its input, waits for the database or another service, writes a small answer.
        case brief
        /// Hashes passwords, renders images or documents, or reads and writes many rows in one call.
        case cpuHeavy
    }

    struct Method: Sendable {
        var work: Work
        /// Who the dispatcher lets call it; nil when the method is public or checks its caller's credential itself.
        var requires: PrincipalRequirement?
        var handler: Handler
    }

    private(set) var handlers: [String: Method] = [:]

    public init() {}

    public var names: [String] { handlers.keys.sorted() }

    /// The kinds of principal `name` is declared for (nil: public, or it checks its caller itself).
    public func requiredPrincipals(of name: String) -> Set<PrincipalKind>? { handlers[name]?.requires?.kinds }

    /// Registers `name`; its params are `{"context": …, "input": Input}`.
    public mutating func register<Input: Decodable & Sendable, Output: Encodable & Sendable>(
        _ name: String,
        input: Input.Type = Input.self,
        requires: PrincipalRequirement? = nil,
        work: Work = .brief,
        _ handler: @escaping @Sendable (Input, CallContext) async throws -> Output
    ) {
        register(name, reading: JSONValueDecoder.Reading(Input.self), requires: requires, work: work, handler)
    }

    /// Registers `name`, its input read as `reading` says (a reader given by code that knows the input's type).
    public mutating func register<Input: Decodable & Sendable, Output: Encodable & Sendable>(
        _ name: String,
        reading: JSONValueDecoder.Reading<Input>,
        requires: PrincipalRequirement? = nil,
        work: Work = .brief,
        _ handler: @escaping @Sendable (Input, CallContext) async throws -> Output
    ) {
        precondition(handlers[name] == nil, "RPC method \(name) registered twice")
        handlers[name] = Method(work: work, requires: requires) { request, context in
            let output = try await handler(try Self.input(from: request.params, reading: reading), context)
            return try Self.encode(output, id: request.id)
        }
    }

    /// The input from `params`' tree. `params` and its `input` may be left out for a method that takes none; an input
    /// of the wrong shape is an invalid-params error that names the member (`params.input.token is required`).
    static func input<Input: Decodable>(from params: JSONValue?, reading: JSONValueDecoder.Reading<Input>) throws -> Input {
        do {
            switch params {
            case nil, .null?:
                if let empty = Empty() as? Input { return empty }
                throw RPCError(.invalidParams, reason: "invalid_params", message: "invalid params: params is required")
            case .object(let members)?:
                guard let input = members["input"] else {
                    if let empty = Empty() as? Input { return empty }
                    throw DecodingError.keyNotFound(ParamsKey.input, .init(codingPath: [ParamsKey.params], debugDescription: "No input"))
                }
                return try reading.decode(from: input, codingPath: [ParamsKey.params, ParamsKey.input])
            case let other?:
                throw DecodingError.typeMismatch([String: Any].self, .init(codingPath: [ParamsKey.params], debugDescription: "params is \(other)"))
            }
        } catch let error as DecodingError {
            throw RPCError(.invalidParams, reason: "invalid_params", message: "invalid params: \(describe(error))")
        }
    }

    /// The response frame: its members in sorted order, the result written by ``JSONValueEncoder``.
    static func encode<Output: Encodable & Sendable>(_ output: Output, id: RPCID?) throws -> ByteBuffer {
        var frame: [UInt8] = []
        frame.reserveCapacity(256)
        var response = JSONObjectWriter(into: &frame)
        response.key("id", into: &frame)
        id.write(into: &frame)
        response.string("jsonrpc", "2.0", into: &frame)
        response.key("result", into: &frame)
        try JSONValueEncoder().write(output, into: &frame)
        response.end(into: &frame)
        return ByteBuffer(bytes: frame)
    }

    /// Merges another set of methods (the runtime's `system.*` ones, say).
    public mutating func merge(_ other: RPCMethods) {
        for (name, handler) in other.handlers {
            precondition(handlers[name] == nil, "RPC method \(name) registered twice")
            handlers[name] = handler
        }
    }
}

/// The members of a request an input sits in, for the paths of invalid-params errors.
private enum ParamsKey: String, CodingKey {
    case params, input
}
