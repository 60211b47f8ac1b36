import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation

/// The formats of the researcher exports every service streams (``StreamPage``): CSV (RFC 4180, CRLF, a
/// header line on the first page) or NDJSON (one JSON object per line, sorted keys).
public enum ResearcherExport {
    /// Rows per page, at most.
    public static let pageSize = 1000
    /// A page ends early once its text passes this many bytes, so that a page of large rows still fits one RPC
    /// frame (8 MiB) after JSON escaping, which can make text up to four times longer.
    public static let pageByteBudget = 512 * 1024

    public enum Format: String, Sendable {
        case csv, ndjson

        public var contentType: String {
            switch self {
            case .csv: "text/csv; charset=utf-8"
            case .ndjson: "application/x-ndjson"
            }
        }
    }

    /// A time bound from the query as the researcher typed it. A `+` in a query is a space (forms, and the FastAPI
    /// the Twomes tools were written against, read it so), which turns `…T04:40:00+00:00` pasted into a URL into
    /// `…T04:40:00 00:00`; a space right before the offset can only have been that `+`.
    public static func timeBound(_ text: String) -> String {
        guard let space = text.lastIndex(of: " ") else { return text }
        let offset = text[text.index(after: space)...]
        let digits = offset.filter(\.isNumber).count
        // Only after a time of day: `2020-03-29 13:00` is a day and a time, not a time and an offset.
        guard space > text.startIndex, text[text.index(before: space)].isNumber, text[..<space].contains(":"), (digits == 2 || digits == 4),
            offset.allSatisfy({ $0.isNumber || $0 == ":" })
        else { return text }
        return text[..<space] + "+" + offset
    }

    /// The one value of the `format` query parameter as a format, CSV when absent.
    public static func format(_ text: String?) throws -> Format {
        guard let format = Format(rawValue: text ?? "csv") else {
            throw RPCError.badRequest("format must be csv or ndjson", reason: "invalid_query")
        }
        return format
    }

    /// The first page's headers: a download named `<name>.<format>` that no cache keeps.
    public static func headers(_ format: Format, name: String) -> [String: String] {
        [
            "Content-Type": format.contentType, "Content-Disposition": "attachment; filename=\"\(name).\(format.rawValue)\"",
            "Cache-Control": "no-store",
        ]
    }

    /// One CSV line, RFC 4180 quoting; nil is an empty field.
    public static func csvLine(_ fields: [String?]) -> String {
        fields.map { field in
            guard let field else { return "" }
            guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
            return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }.joined(separator: ",") + "\r\n"
    }

    public static func ndjsonLine(_ object: [String: JSONValue]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(JSONValue.object(object)), as: UTF8.self) + "\n"
    }
}
