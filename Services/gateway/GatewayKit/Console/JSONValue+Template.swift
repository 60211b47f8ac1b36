import CustodianJSON
import CustodianRPC
import Foundation

extension JSONValue {
    /// The value as Mustache renders it: objects as dictionaries, arrays as arrays, null as nothing (in an array: left
    /// out), and times as
    /// ``displayText`` shows them.
    var templateValue: Any? {
        switch self {
        case .null: nil
        case .bool(let value): value
        case .int(let value): value
        case .double(let value): value
        case .string: displayText
        case .array(let values): values.compactMap { $0.templateValue }
        case .object(let fields): fields.compactMapValues { $0.templateValue }
        }
    }

    /// A string as a person reads it on a page: a UTC time as `2026-11-25 03:24 UTC` (the APIs write
    /// `2026-11-25T03:24:26+00:00` or `…Z`, too long for a table cell), any other text as it is.
    var displayText: String? {
        guard case .string(let text) = self else { return nil }
        let utf8 = Array(text.utf8)
        let isTime =
            utf8.count >= 20 && utf8[4] == UInt8(ascii: "-") && utf8[7] == UInt8(ascii: "-") && utf8[10] == UInt8(ascii: "T")
            && utf8[13] == UInt8(ascii: ":") && utf8[16] == UInt8(ascii: ":")
            && (text.hasSuffix("Z") || text.hasSuffix("+00:00")) && text.prefix(19).allSatisfy { $0.isASCII && ($0.isNumber || "-T:".contains($0)) }
        guard isTime else { return text }
        return "\(text.prefix(10)) \(text.dropFirst(11).prefix(5)) UTC"
    }

    var prettyJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}
