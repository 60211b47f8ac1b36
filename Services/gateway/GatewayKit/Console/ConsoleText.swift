import Foundation

/// How the console words what it shows: times short enough for a table cell, counts with their noun in the right number.
enum ConsoleText {
    /// A UTC time as `2026-11-25 03:24 UTC` (the APIs write `2026-11-25T03:24:26+00:00` or `…Z`, too long for a table
    /// cell); any other text as it is.
    static func display(_ text: String) -> String {
        let utf8 = Array(text.utf8)
        let isTime =
            utf8.count >= 20 && utf8[4] == UInt8(ascii: "-") && utf8[7] == UInt8(ascii: "-") && utf8[10] == UInt8(ascii: "T")
            && utf8[13] == UInt8(ascii: ":") && utf8[16] == UInt8(ascii: ":")
            && (text.hasSuffix("Z") || text.hasSuffix("+00:00")) && text.prefix(19).allSatisfy { $0.isASCII && ($0.isNumber || "-T:".contains($0)) }
        guard isTime else { return text }
        return "\(text.prefix(10)) \(text.dropFirst(11).prefix(5)) UTC"
    }

    /// An optional time or text as ``display(_:)`` shows it, or what stands for its absence.
    static func display(_ text: String?, else absent: String) -> String {
        text.map(display) ?? absent
    }

    /// `1 week`, `2 weeks`, `0 rows`: a count and its noun, singular only for one. `plural` for nouns not made with -s.
    static func counted(_ count: some BinaryInteger, _ singular: String, plural: String? = nil) -> String {
        "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
    }

    static func time(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false).timeSeparator(.colon).dateSeparator(.dash))
    }

    /// Everything but RFC 3986's unreserved characters percent-encoded, for a query value or a path segment (a
    /// cursor's or a device name's `-` stays as written; a letter beyond ASCII is encoded).
    static func queryEscaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(charactersIn: "-._~").union(CharacterSet(charactersIn: "a"..."z"))
        .union(CharacterSet(charactersIn: "A"..."Z")).union(CharacterSet(charactersIn: "0"..."9"))
}
