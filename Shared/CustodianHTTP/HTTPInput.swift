import CustodianJSON
import CustodianRPC
import Foundation

/// The input of a method the gateway routes an HTTP request to: the parsed body (JSON, or form fields as
/// strings), the route's path parameters, the query parameters, and the few request headers its route
/// forwards.
public struct HTTPInput: Codable, Sendable {
    /// The body as a value; an input made from a checked body reads it from its text on each use.
    public var body: JSONValue {
        get {
            switch bodyForm {
            case .value(let value): value
            case .checked(let text): text.value
            }
        }
        set { bodyForm = .value(newValue) }
    }

    /// How the body is held: a value, or (in the gateway) JSON text checked and forwarded as it came.
    enum BodyForm: Sendable {
        case value(JSONValue)
        case checked(CheckedJSON)
    }

    var bodyForm: BodyForm
    public var path: [String: String]
    public var query: [String: [String]]
    /// Only the headers the route asks for (a link resolver needs `user-agent`), by lowercase name;
    /// credentials never travel this way.
    public var headers: [String: String]
    /// For streamed routes: where the previous page ended (nil for the first page).
    public var cursor: String?

    public init(body: JSONValue = .null, path: [String: String] = [:], query: [String: [String]] = [:],
                headers: [String: String] = [:], cursor: String? = nil) {
        self.bodyForm = .value(body)
        self.path = path
        self.query = query
        self.headers = headers
        self.cursor = cursor
    }

    /// An input whose body is JSON text the gateway checked: written into the frame as it came.
    public init(checkedBody: CheckedJSON, path: [String: String] = [:], query: [String: [String]] = [:],
                headers: [String: String] = [:]) {
        self.init(path: path, query: query, headers: headers)
        self.bodyForm = .checked(checkedBody)
    }

    enum CodingKeys: String, CodingKey { case body, path, query, headers, cursor }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        bodyForm = .value(try container.decode(JSONValue.self, forKey: .body))
        path = try container.decode([String: String].self, forKey: .path)
        query = try container.decode([String: [String]].self, forKey: .query)
        // Callers from before headers were forwarded leave the member out.
        headers = try container.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
        cursor = try container.decodeIfPresent(String.self, forKey: .cursor)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(body, forKey: .body)
        try container.encode(path, forKey: .path)
        try container.encode(query, forKey: .query)
        // Optional members are left out when empty (docs/rpc.md).
        if !headers.isEmpty { try container.encode(headers, forKey: .headers) }
        try container.encodeIfPresent(cursor, forKey: .cursor)
    }

    /// The one value of query parameter `name`: nil when it is absent, a 400 when it is given twice, since
    /// picking one of two values silently hides a client's mistake.
    public func singleQueryValue(_ name: String) throws -> String? {
        guard let values = query[name] else { return nil }
        guard values.count == 1 else {
            throw RPCError.badRequest("Give the query parameter '\(name)' once, not \(values.count) times", reason: "repeated_parameter")
        }
        return values[0]
    }

    /// A whole-number query parameter within `range`, `defaultValue` when absent; else a 400 that gives the range.
    public func integerQueryValue(_ name: String, default defaultValue: Int64, in range: ClosedRange<Int64>) throws -> Int64 {
        guard let text = try singleQueryValue(name) else { return defaultValue }
        guard let value = Int64(text), range.contains(value) else {
            throw RPCError.badRequest("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)", reason: "invalid_query")
        }
        return value
    }
}
