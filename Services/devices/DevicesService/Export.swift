import CustodianRPC
import Foundation

/// Exports for researchers, written a page at a time (the gateway streams the pages to the client).
enum Export {
    static let pageSize = 1000

    enum Format: String {
        case csv, ndjson

        var contentType: String {
            switch self {
            case .csv: "text/csv; charset=utf-8"
            case .ndjson: "application/x-ndjson"
            }
        }
    }

    static func format(_ input: HTTPInput) throws -> Format {
        let text = input.query["format"]?.first ?? "csv"
        guard let format = Format(rawValue: text) else {
            throw RPCError.badRequest("format must be csv or ndjson", reason: "invalid_query")
        }
        return format
    }

    static func headers(_ format: Format, name: String) -> [String: String] {
        ["Content-Type": format.contentType, "Content-Disposition": "attachment; filename=\"\(name).\(format.rawValue)\"", "Cache-Control": "no-store"]
    }

    /// One CSV line, RFC 4180 quoting.
    static func csvLine(_ fields: [String?]) -> String {
        fields.map { field in
            guard let field else { return "" }
            guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
            return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }.joined(separator: ",") + "\r\n"
    }

    static func ndjsonLine(_ object: [String: JSONValue]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(JSONValue.object(object)), as: UTF8.self) + "\n"
    }

    /// A time bound from the query (`from`, `to`): ISO 8601 with an offset, or unix seconds.
    static func time(_ input: HTTPInput, _ name: String) throws -> Date? {
        guard let text = input.query[name]?.first else { return nil }
        do {
            return try TwomesTime.parse(.string(text), at: ["query", name])
        } catch {
            throw RPCError.badRequest("\(name) must be an ISO 8601 time with an offset, or unix seconds", reason: "invalid_query")
        }
    }

    static func iso(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: false).format(date)
    }
}
