import Foundation
import Logging
import NIOCore
import NIOFoundationCompat

/// The methods a service answers, by name. Each handler gets its typed input and the caller's context.
public struct RPCMethods: Sendable {
    /// A request as the dispatcher read it: the frame, its members when the fast parser read them, and its id.
    struct Request: Sendable {
        var frame: ByteBuffer
        var fields: [String: JSONValue]?
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
    public mutating func register<Input: Codable & Sendable, Output: Encodable & Sendable>(
        _ name: String,
        input: Input.Type = Input.self,
        requires: PrincipalRequirement? = nil,
        work: Work = .brief,
        _ handler: @escaping @Sendable (Input, CallContext) async throws -> Output
    ) {
        precondition(handlers[name] == nil, "RPC method \(name) registered twice")
        handlers[name] = Method(work: work, requires: requires) { request, context in
            let input: Input
            if let fields = request.fields, let fast = Self.input(Input.self, from: fields["params"]) {
                input = fast
            } else {
                input = try Self.decodeInput(Input.self, from: request.frame, context: context)
            }
            let output = try await handler(input, context)
            return try Self.encode(output, id: request.id)
        }
    }

    /// The input straight from the parsed frame, for the inputs most calls carry; nil sends the caller to `JSONDecoder`.
    static func input<Input>(_ type: Input.Type, from params: JSONValue?) -> Input? {
        if Input.self == HTTPInput.self {
            return HTTPInput(json: params?["input"]) as? Input
        }
        if Input.self == Empty.self {
            switch params?["input"] {
            case nil, .object?: return Empty() as? Input
            default: return nil
            }
        }
        return nil
    }

    /// The `JSONDecoder` reading, whose errors name the member that is wrong.
    static func decodeInput<Input: Codable & Sendable>(_ type: Input.Type, from frame: ByteBuffer, context: CallContext) throws -> Input {
        do {
            let envelope = try JSONDecoder().decode(RPCParamsEnvelope<Input>.self, from: frame)
            if let decoded = envelope.params { return decoded.input }
            if let empty = Empty() as? Input { return empty }
            throw RPCError(.invalidParams, reason: "invalid_params", message: "invalid params: params is required")
        } catch let error as DecodingError {
            throw RPCError(.invalidParams, reason: "invalid_params", message: "invalid params: \(describe(error))")
        }
    }

    static func encode<Output: Encodable & Sendable>(_ output: Output, id: RPCID?) throws -> ByteBuffer {
        let write: ((inout [UInt8]) -> Void)? = if let value = output as? JSONValue {
            { value.write(into: &$0) }
        } else if let convertible = output as? any JSONValueConvertible {
            { convertible.writeJSON(into: &$0) }
        } else {
            nil
        }
        if let write {
            // The members in sorted order, as the tree's writing would put them.
            var frame: [UInt8] = []
            frame.reserveCapacity(256)
            var response = JSONObjectWriter(into: &frame)
            response.key("id", into: &frame)
            (id?.json ?? .null).write(into: &frame)
            response.string("jsonrpc", "2.0", into: &frame)
            response.key("result", into: &frame)
            write(&frame)
            response.end(into: &frame)
            return ByteBuffer(bytes: frame)
        }
        return try JSONEncoder().encodeAsByteBuffer(RPCResponse(id: id, result: output), allocator: ByteBufferAllocator())
    }

    /// Merges another set of methods (the runtime's `system.*` ones, say).
    public mutating func merge(_ other: RPCMethods) {
        for (name, handler) in other.handlers {
            precondition(handlers[name] == nil, "RPC method \(name) registered twice")
            handlers[name] = handler
        }
    }
}

private struct RPCParamsEnvelope<Input: Codable & Sendable>: Decodable {
    var params: RPCParams<Input>?
}

/// Where each JSON decoding error points, in words a client developer can act on. With the `body` that was decoded,
/// a number that fits no integer field is named too (Foundation reports it without a path).
public func describe(_ error: DecodingError, in body: JSONValue? = nil) -> String {
    func path(_ codingPath: [any CodingKey]) -> String {
        let parts = codingPath.map { key in key.intValue.map { "[\($0)]" } ?? key.stringValue }
        let joined = parts.reduce("") { result, part in
            part.hasPrefix("[") || result.isEmpty ? result + part : result + "." + part
        }
        return joined.isEmpty ? "body" : joined
    }
    switch error {
    case .keyNotFound(let key, let context):
        return "\(path(context.codingPath + [key])) is required"
    case .typeMismatch(let type, let context):
        return "\(path(context.codingPath)) must be \(typeName(type))"
    case .valueNotFound(let type, let context):
        return "\(path(context.codingPath)) must be \(typeName(type)), not null"
    case .dataCorrupted(let context):
        if context.codingPath.isEmpty, let body {
            let candidates = HTTPInput.numbersThatAreNotIntegers(in: body, at: [])
            return candidates.count == 1 ? "\(path(candidates[0].map { StringKey($0) })) must be an integer" : "a number in the body must be an integer"
        }
        if context.codingPath.isEmpty { return "the body is not valid JSON" }
        return "\(path(context.codingPath)): \(context.debugDescription)"
    @unknown default:
        return "\(error)"
    }
}

private func typeName(_ type: Any.Type) -> String {
    switch JSONKind(type) {
    case .string: "a string"
    case .boolean: "a boolean"
    case .integer: "an integer"
    case .number: "a number"
    case .array: "an array"
    case .object: "an object"
    }
}

/// What JSON a Swift type decodes from, for error messages.
enum JSONKind {
    case string, boolean, integer, number, array, object

    init(_ type: Any.Type) {
        switch type {
        case is String.Type: self = .string
        case is Bool.Type: self = .boolean
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type: self = .integer
        case is Double.Type, is Float.Type: self = .number
        default:
            // Dictionaries are collections too, but JSON objects.
            let name = String(describing: type)
            self = name.hasPrefix("Array<") || name.hasPrefix("[") && !name.contains(":") ? .array : .object
        }
    }
}

/// A coding key made of a location's part, to name it like a decoder's path.
private struct StringKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ part: String) {
        stringValue = part
        intValue = Int(part)
    }

    init?(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { self.init(String(intValue)) }
}
