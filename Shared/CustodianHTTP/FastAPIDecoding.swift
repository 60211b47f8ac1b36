import CustodianJSON
import CustodianRPC

extension RequestDecoding {
    /// FastAPI's (pydantic v1's) 422, whose `details` list the problem with its location: the Twomes API's
    /// `{"detail":[{"loc":["body","name"],"msg":"field required","type":"value_error.missing"}]}`, and the admin API's
    /// `validation_failed` with the message `name: field required` (the gateway renders the one error each way).
    public static let fastAPI = RequestDecoding { error in
        let problem = FastAPIProblem(error)
        return RPCError.validation(location: problem.location, message: problem.message, type: problem.type)
    }
}

/// A decoding error in pydantic v1's words.
struct FastAPIProblem {
    var location: [String]
    var message: String
    var type: String

    init(_ error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            self.init(context, key: key, "field required", "value_error.missing")
        case .valueNotFound(_, let context) where RequestDecoding.location(context.codingPath) == ["body"]:
            // A request without a body reaches the service with a `null` one: FastAPI says the body is missing.
            self.init(context, "field required", "value_error.missing")
        case .valueNotFound(_, let context):
            self.init(context, "none is not an allowed value", "type_error.none.not_allowed")
        case .typeMismatch(let type, let context) where JSONKind(type) == .string:
            // pydantic v1's wording: strings have their own message.
            self.init(context, "str type expected", "type_error.str")
        case .typeMismatch(let type, let context):
            // Also a number that fits no integer field (`1.5`, `1e20`): `value is not a valid integer`, at its member.
            let name = Self.pythonTypeName(type)
            self.init(context, "value is not a valid \(name)", "type_error.\(name)")
        case .dataCorrupted(let context):
            self.init(context, context.debugDescription, "value_error")
        @unknown default:
            self.init(location: ["body"], message: "invalid value", type: "value_error")
        }
    }

    private init(location: [String], message: String, type: String) {
        self.location = location
        self.message = message
        self.type = type
    }

    private init(_ context: DecodingError.Context, key: (any CodingKey)? = nil, _ message: String, _ type: String) {
        self.init(location: RequestDecoding.location(context.codingPath + (key.map { [$0] } ?? [])), message: message, type: type)
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

    /// A validation failure where `codingPath` points (a decoder's, in an input's own checks).
    public static func validation(at codingPath: [any CodingKey], message: String, type: String = "value_error") -> RPCError {
        validation(location: RequestDecoding.location(codingPath), message: message, type: type)
    }
}

extension KeyedDecodingContainer {
    /// A member that must be there and not `null`, of any JSON type, for an input that reads it its own way (a Twomes
    /// time); pydantic's `field required` or `none is not an allowed value` otherwise.
    public func requiredValue(forKey key: Key) throws -> JSONValue {
        let value = try decode(JSONValue.self, forKey: key)
        guard !value.isNull else {
            throw DecodingError.valueNotFound(JSONValue.self, .init(codingPath: codingPath + [key], debugDescription: "null"))
        }
        return value
    }
}

extension UnkeyedDecodingContainer {
    /// The next item's members; anything but an object (`null` included) is pydantic's `value is not a valid dict`.
    public mutating func nestedObject<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard try !decodeNil() else {
            // `decodeNil` moved past the item.
            throw RPCError.validation(at: codingPath + [PositionKey(currentIndex - 1)], message: "value is not a valid dict", type: "type_error.dict")
        }
        return try nestedContainer(keyedBy: Key.self)
    }
}

/// An array position in a path.
struct PositionKey: CodingKey {
    var intValue: Int?
    var stringValue: String { String(intValue ?? 0) }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}
