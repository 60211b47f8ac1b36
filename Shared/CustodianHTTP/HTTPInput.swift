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

    public init(
        body: JSONValue = .null, path: [String: String] = [:], query: [String: [String]] = [:],
        headers: [String: String] = [:], cursor: String? = nil
    ) {
        self.bodyForm = .value(body)
        self.path = path
        self.query = query
        self.headers = headers
        self.cursor = cursor
    }

    /// An input whose body is JSON text the gateway checked: written into the frame as it came.
    public init(
        checkedBody: CheckedJSON, path: [String: String] = [:], query: [String: [String]] = [:],
        headers: [String: String] = [:]
    ) {
        self.init(path: path, query: query, headers: headers)
        self.bodyForm = .checked(checkedBody)
    }

    typealias CodingKeys = RequestKey

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

    /// The one value of query parameter `name` (``QueryParameter/single(_:name:)``).
    public func singleQueryValue(_ name: String) throws -> String? {
        try QueryParameter.single(query[name], name: name)
    }

    /// A whole-number query parameter within `range` (``QueryParameter/integer(_:name:default:in:)``).
    public func integerQueryValue(_ name: String, default defaultValue: Int64, in range: ClosedRange<Int64>) throws -> Int64 {
        try QueryParameter.integer(singleQueryValue(name), name: name, default: defaultValue, in: range)
    }
}
