import CustodianJSON
import CustodianRPC

extension RequestDecoding {
    /// The OpenSense thesis' words (`{"error": "Missing device_id parameter"}`, 400). Its clients post forms, whose
    /// fields are all text: inputs read them with ``KeyedDecodingContainer/openSenseText(forKey:)``.
    public static let openSense = RequestDecoding { error in
        switch error {
        case .keyNotFound(let key, _):
            RPCError.badRequest("Missing \(key.stringValue) parameter")
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            RPCError.badRequest("Invalid \(RequestDecoding.location(context.codingPath).dropFirst().joined(separator: ".")) parameter")
        @unknown default:
            RPCError.badRequest("Invalid parameters")
        }
    }
}

extension KeyedDecodingContainer {
    /// A non-empty text field of an OpenSense form, nil when absent or empty: form fields are always text; JSON
    /// clients may send a whole number, taken as its digits.
    public func openSenseText(forKey key: Key) throws -> String? {
        switch try decodeIfPresent(JSONValue.self, forKey: key) {
        case .string(let text)? where !text.isEmpty: text
        case .int(let number)?: String(number)
        default: nil
        }
    }
}
