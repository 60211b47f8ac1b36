import CustodianJSON
import CustodianRPC

/// The typed input of a routed method (docs/rpc.md, "Typed routed methods"). Its coded form is the request as the
/// gateway forwards it (``HTTPInput``'s: `body`, `path`, `query`, `headers`, `cursor`): `init(from:)` reads what the
/// handler needs with a ``RequestReader`` and checks it as its API does, and `encode(to:)` writes a request that reads as
/// it (tests and other callers send that).
public protocol RoutedInput: Codable, Sendable {
    /// How the API words what it cannot read (a member missing, or of the wrong type).
    static var decoding: RequestDecoding { get }
}

/// The input of a routed method that reads nothing of the request (a list, the current configuration).
public struct NoInput: RoutedInput {
    public static var decoding: RequestDecoding { .fastAPI }

    public init() {}
    public init(from decoder: any Decoder) throws {}

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput().encode(to: encoder)
    }
}

/// The members of a request as the gateway forwards it (``HTTPInput``).
public enum RequestKey: String, CodingKey {
    case body, path, query, headers, cursor
}

/// A path or query parameter's name, as a key of the request's `path` or `query`.
struct ParameterKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// What a routed input's `init(from:)` reads the request with: the body, path and query parameters, the cursor. Each is
/// read where it sits in the request, so that an error points there (`["body", "name"]`, `["path", "device_name"]`).
public struct RequestReader {
    let request: KeyedDecodingContainer<RequestKey>

    public init(_ decoder: any Decoder) throws {
        request = try decoder.container(keyedBy: RequestKey.self)
    }

    /// The body's members. A request without a body has a `null` one, which is `field required` at `body` in FastAPI's
    /// words (the decoder's `valueNotFound` there).
    public func body<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try request.nestedContainer(keyedBy: Key.self, forKey: .body)
    }

    /// The body as `T`: a ``JSONValue`` for a body taken as it came (its digest, a form's fields).
    public func body<T: Decodable>(_ type: T.Type) throws -> T {
        try request.decode(T.self, forKey: .body)
    }

    /// The path parameter the route's pattern names (`{device_name}`); the gateway always sends it.
    public func path(_ name: String) throws -> String {
        let parameters = try request.nestedContainer(keyedBy: ParameterKey.self, forKey: .path)
        return try parameters.decode(String.self, forKey: ParameterKey(name))
    }

    /// Every value of query parameter `name`, in order; none when it is absent.
    public func query(_ name: String) throws -> [String] {
        try queryIfPresent(name) ?? []
    }

    private func queryIfPresent(_ name: String) throws -> [String]? {
        guard request.contains(.query) else { return nil }
        let parameters = try request.nestedContainer(keyedBy: ParameterKey.self, forKey: .query)
        return try parameters.decodeIfPresent([String].self, forKey: ParameterKey(name))
    }

    /// The first value of query parameter `name` (a repeat is ignored), nil when it is absent.
    public func firstQuery(_ name: String) throws -> String? {
        try query(name).first
    }

    /// The one value of query parameter `name`: nil when absent, a 400 when repeated (``QueryParameter/single(_:name:)``).
    public func singleQuery(_ name: String) throws -> String? {
        try QueryParameter.single(queryIfPresent(name), name: name)
    }

    /// A whole-number query parameter within `range` (``QueryParameter/integer(_:name:default:in:)``).
    public func integerQuery(_ name: String, default defaultValue: Int64, in range: ClosedRange<Int64>) throws -> Int64 {
        try QueryParameter.integer(singleQuery(name), name: name, default: defaultValue, in: range)
    }

    /// A query parameter that is `true` or `false`: nil when absent, a 400 for anything else (or a repeat).
    public func booleanQuery(_ name: String) throws -> Bool? {
        switch try singleQuery(name) {
        case nil: return nil
        case "true": return true
        case "false": return false
        default: throw RPCError.badRequest("\(name) must be true or false", reason: "invalid_query")
        }
    }

    /// The names of the query's parameters, sorted: for an API that refuses one it does not know (a misspelt one).
    public func queryNames() throws -> [String] {
        guard request.contains(.query) else { return [] }
        return try request.nestedContainer(keyedBy: ParameterKey.self, forKey: .query).allKeys.map(\.stringValue).sorted()
    }

    /// A request header the route forwards (by lowercase name, `user-agent`), nil when the request had none.
    public func header(_ name: String) throws -> String? {
        guard request.contains(.headers) else { return nil }
        return try request.nestedContainer(keyedBy: ParameterKey.self, forKey: .headers).decodeIfPresent(String.self, forKey: ParameterKey(name))
    }

    /// Where the previous page of a streamed route ended; nil for the first page.
    public var cursor: String? {
        get throws { try request.decodeIfPresent(String.self, forKey: .cursor) }
    }
}
