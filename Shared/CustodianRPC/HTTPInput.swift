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

    /// Decodes the body as `T`; a body of the wrong shape is a 422 whose details list each problem
    /// with its location, as FastAPI-style clients expect.
    public func decodeBody<T: Decodable>(as type: T.Type = T.self) throws -> T {
        if body.isNull {
            throw RPCError.validation(location: ["body"], message: "field required", type: "value_error.missing")
        }
        do {
            let data = try JSONEncoder().encode(body)
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            // Foundation reports a number that does not fit an integer field (1.5, 1e20) as corrupt data without a
            // path; the body is valid JSON, so that number is the problem: name it when it is the only candidate.
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty {
                let candidates = Self.numbersThatAreNotIntegers(in: body, at: [])
                throw RPCError.validation(location: ["body"] + (candidates.count == 1 ? candidates[0] : []),
                                          message: "value is not a valid integer", type: "type_error.integer")
            }
            throw RPCError.validation(location: ["body"] + Self.location(of: error), message: Self.message(of: error), type: Self.type(of: error))
        }
    }

    /// Where the body holds numbers that no integer field takes (fractions, and integers beyond 64 bits).
    static func numbersThatAreNotIntegers(in value: JSONValue, at location: [String]) -> [[String]] {
        switch value {
        case .double: [location]
        case .array(let values): values.enumerated().flatMap { numbersThatAreNotIntegers(in: $1, at: location + [String($0)]) }
        case .object(let fields): fields.keys.sorted().flatMap { key in fields[key].map { numbersThatAreNotIntegers(in: $0, at: location + [key]) } ?? [] }
        default: []
        }
    }

    static func location(of error: DecodingError) -> [String] {
        let context: DecodingError.Context
        var extra: [String] = []
        switch error {
        case .keyNotFound(let key, let errorContext):
            context = errorContext
            extra = [key.stringValue]
        case .typeMismatch(_, let errorContext), .valueNotFound(_, let errorContext), .dataCorrupted(let errorContext):
            context = errorContext
        @unknown default:
            return []
        }
        return context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue } + extra
    }

    static func message(of error: DecodingError) -> String {
        switch error {
        case .keyNotFound: "field required"
        case .valueNotFound: "none is not an allowed value"
        // pydantic v1's wording: strings have their own message.
        case .typeMismatch(let type, _) where JSONKind(type) == .string: "str type expected"
        case .typeMismatch(let type, _): "value is not a valid \(pythonTypeName(type))"
        // A number that does not fit the field's type (800001.5 for an integer) is reported as data corruption.
        case .dataCorrupted(let context) where context.debugDescription.contains("fit") || context.debugDescription.contains("umber"):
            "value is not a valid integer"
        case .dataCorrupted(let context): context.debugDescription
        @unknown default: "invalid value"
        }
    }

    static func type(of error: DecodingError) -> String {
        switch error {
        case .keyNotFound: "value_error.missing"
        case .valueNotFound: "type_error.none.not_allowed"
        case .typeMismatch(let type, _): "type_error.\(pythonTypeName(type))"
        case .dataCorrupted(let context) where context.debugDescription.contains("fit") || context.debugDescription.contains("umber"):
            "type_error.integer"
        default: "value_error"
        }
    }

    private static func pythonTypeName(_ type: Any.Type) -> String {
        switch JSONKind(type) {
        case .string: "str"
        case .boolean: "bool"
        case .integer: "integer"
        case .number: "float"
        case .array: "list"
        case .object: "dict"
        }
    }
}

extension RPCError {
    /// A validation failure at `location` (`["body", "pseudonym"]`), FastAPI's 422 shape in `details`.
    public static func validation(location: [String], message: String, type: String = "value_error") -> RPCError {
        let path = location.dropFirst().joined(separator: ".")
        return RPCError(
            .unprocessable, reason: "validation_failed",
            message: path.isEmpty ? message : "\(path): \(message)",
            details: .array([.object(["loc": .array(location.map { .string($0) }), "msg": .string(message), "type": .string(type)])]))
    }
}

/// What a method behind a raw route returns: the whole HTTP response, for bodies that are not JSON in the
/// API's style (a QR code image, a redirect, an HTML page, a CSV export).
public struct RawHTTPReply: Codable, Sendable {
    public var status: Int
    public var headers: [String: String]
    /// The body, base64-encoded so that binary bodies survive JSON.
    public var body: String

    public init(status: Int = 200, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body.base64EncodedString()
    }

    public init(status: Int = 200, contentType: String, text: String, headers: [String: String] = [:]) {
        self.init(status: status, headers: headers.merging(["Content-Type": contentType]) { _, new in new }, body: Data(text.utf8))
    }

    init(status: Int, headers: [String: String], base64Body: String) {
        self.status = status
        self.headers = headers
        self.body = base64Body
    }
}

/// One page of a streamed response (an export): the gateway writes `chunk` to the client and asks for the
/// page after `next` until there is none, so that neither it nor the service holds the whole export.
public struct StreamPage: Codable, Sendable {
    /// Sent with the first page only: the response's headers (Content-Type, Content-Disposition).
    public var headers: [String: String]?
    public var chunk: String
    public var next: String?

    public init(headers: [String: String]? = nil, chunk: String, next: String?) {
        self.headers = headers
        self.chunk = chunk
        self.next = next
    }
}
