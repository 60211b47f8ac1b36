import CustodianRPC
import Foundation

extension JSONValue {
    /// The value as Mustache renders it: objects as dictionaries, arrays as arrays, null as nothing.
    var templateValue: Any? {
        switch self {
        case .null: nil
        case .bool(let value): value
        case .int(let value): value
        case .double(let value): value
        case .string(let value): value
        case .array(let values): values.map { $0.templateValue as Any }
        case .object(let fields): fields.compactMapValues { $0.templateValue }
        }
    }

    var prettyJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}
