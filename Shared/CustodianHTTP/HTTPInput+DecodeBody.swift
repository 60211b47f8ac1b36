import CustodianJSON
import CustodianRPC
import Foundation

extension HTTPInput {
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
                let candidates = body.numbersThatAreNotIntegers()
                throw RPCError.validation(location: ["body"] + (candidates.count == 1 ? candidates[0] : []),
                                          message: "value is not a valid integer", type: "type_error.integer")
            }
            throw RPCError.validation(location: ["body"] + Self.location(of: error), message: Self.message(of: error), type: Self.type(of: error))
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
