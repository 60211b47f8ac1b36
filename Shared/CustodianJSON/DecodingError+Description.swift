/// Where each JSON decoding error points, in words a client developer can act on. With the `body` that was decoded,
/// a number that fits no integer field is named too (Foundation's `JSONDecoder` reports it without a path).
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
            let candidates = body.numbersThatAreNotIntegers()
            return candidates.count == 1
                ? "\(path(candidates[0].map { StringKey($0) })) must be an integer" : "a number in the body must be an integer"
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
public enum JSONKind: Sendable {
    case string, boolean, integer, number, array, object

    public init(_ type: Any.Type) {
        switch type {
        case is String.Type: self = .string
        case is Bool.Type: self = .boolean
        case is any BinaryInteger.Type: self = .integer
        case is any BinaryFloatingPoint.Type: self = .number
        default:
            // Dictionaries are collections too, but JSON objects.
            let name = String(describing: type)
            self = name.hasPrefix("Array<") || name.hasPrefix("[") && !name.contains(":") ? .array : .object
        }
    }
}

extension JSONValue {
    /// Where the value holds numbers that no integer field takes (fractions, and integers beyond 64 bits), as paths of
    /// member names and array indices, in key order.
    public func numbersThatAreNotIntegers(at location: [String] = []) -> [[String]] {
        switch self {
        case .double: [location]
        case .array(let values): values.enumerated().flatMap { $1.numbersThatAreNotIntegers(at: location + [String($0)]) }
        case .object(let fields): fields.keys.sorted().flatMap { key in fields[key].map { $0.numbersThatAreNotIntegers(at: location + [key]) } ?? [] }
        default: []
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
