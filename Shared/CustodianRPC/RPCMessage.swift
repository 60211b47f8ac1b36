import CustodianJSON

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

/// What a server sends on each connection when it begins to shut down, so that clients stop sending
/// there before it closes the connection (a request sent after the close would be lost without a trace).
enum RPCGoodbye {
    static let method = "rpc.goodbye"
    static let frame = #"{"jsonrpc":"2.0","method":"rpc.goodbye"}"#
}

/// An empty input or result: `{}` on the wire.
public struct Empty: Codable, Sendable, Equatable {
    public init() {}
}
