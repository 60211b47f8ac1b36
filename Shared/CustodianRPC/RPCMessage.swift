import Foundation

/// A JSON-RPC 2.0 request id: a number or a string (null ids are answered as `null`).
public enum RPCID: Sendable, Hashable, Codable, CustomStringConvertible {
    case number(Int64)
    case string(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            self = .number(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        }
    }

    public var description: String {
        switch self {
        case .number(let value): String(value)
        case .string(let value): "\"\(value)\""
        }
    }
}

/// The wire form of `params`: the caller context the gateway established, and the method's own input.
public struct RPCParams<Input: Codable & Sendable>: Codable, Sendable {
    public var context: CallContext
    public var input: Input

    public init(context: CallContext, input: Input) {
        self.context = context
        self.input = input
    }

    enum CodingKeys: CodingKey { case context, input }

    /// A hand-written JSON-RPC call may leave out the context, and the input of a method that takes none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.context = try container.decodeIfPresent(CallContext.self, forKey: .context) ?? CallContext(requestID: "-")
        if !container.contains(.input), let empty = Empty() as? Input {
            self.input = empty
        } else {
            self.input = try container.decode(Input.self, forKey: .input)
        }
    }
}

/// A request as sent by ``RPCClient``.
struct RPCRequest<Input: Codable & Sendable>: Encodable, Sendable {
    var jsonrpc = "2.0"
    var id: RPCID?
    var method: String
    var params: RPCParams<Input>
}

/// The fields the server reads before it knows which method, and so which input type, it has.
struct RPCRequestHeader: Decodable {
    var jsonrpc: String?
    var id: RPCID?
    var method: String?

    enum CodingKeys: CodingKey { case jsonrpc, id, method }

    /// `id` present (even `null`) makes a request; absent makes a notification.
    var isNotification = false

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.jsonrpc = try? container.decodeIfPresent(String.self, forKey: .jsonrpc)
        self.isNotification = !container.contains(.id)
        self.id = try? container.decodeIfPresent(RPCID.self, forKey: .id)
        self.method = try? container.decodeIfPresent(String.self, forKey: .method)
    }
}

/// The error member of a response.
public struct RPCErrorObject: Codable, Sendable, Equatable {
    public var code: Int
    public var message: String
    public var data: RPCErrorData?

    public init(code: Int, message: String, data: RPCErrorData? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }
}

/// Machine-readable detail of an application error: a stable reason and, where an API style needs more
/// (a list of validation failures, say), style-specific details.
public struct RPCErrorData: Codable, Sendable, Equatable {
    public var reason: String
    public var details: JSONValue?
    /// For `tooManyRequests` and `unavailable`: seconds after which a retry may succeed (HTTP's `Retry-After`).
    public var retryAfter: Int?

    public init(reason: String, details: JSONValue? = nil, retryAfter: Int? = nil) {
        self.reason = reason
        self.details = details
        self.retryAfter = retryAfter
    }
}

struct RPCResponse<Output: Encodable & Sendable>: Encodable, Sendable {
    var jsonrpc = "2.0"
    var id: RPCID?
    var result: Output

    enum CodingKeys: CodingKey { case jsonrpc, id, result }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jsonrpc, forKey: .jsonrpc)
        // JSON-RPC wants the id echoed, `null` included.
        try container.encode(id, forKey: .id)
        try container.encode(result, forKey: .result)
    }
}

/// What the client reads of every response to route it to its caller.
struct RPCResponseHeader: Decodable {
    var id: RPCID?
    /// Set on the one notification a server sends: ``RPCGoodbye/method``.
    var method: String?
}

/// What a server sends on each connection when it begins to shut down, so that clients stop sending
/// there before it closes the connection (a request sent after the close would be lost without a trace).
enum RPCGoodbye {
    static let method = "rpc.goodbye"
    static let frame = #"{"jsonrpc":"2.0","method":"rpc.goodbye"}"#
}

/// A response as the caller decodes it, once it knows the result type.
struct RPCResponseBody<Output: Decodable>: Decodable {
    var result: Output?
    var error: RPCErrorObject?
}

/// An empty input or result: `{}` on the wire.
public struct Empty: Codable, Sendable, Equatable {
    public init() {}
}
