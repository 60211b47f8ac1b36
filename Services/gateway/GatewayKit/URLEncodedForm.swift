import CustodianSecurity
import Foundation

/// `a=1&b=x+y&b=z` as HTML forms, query strings and curl's `--data-urlencode` write it: parts split at `&`, a name
/// from its value at the first `=` (a part without one is a name with an empty value), `+` a space, `%XX` a byte;
/// each name's values in the order sent. The gateway's one reader of the format: the routes' queries and form bodies
/// (docs/rpc.md, "Input") and the console's forms and queries.
///
/// Hummingbird 2 (2.28.1) has two readers of it, and neither keeps what the APIs promise:
/// - `URI.queryParameters` leaves names percent-encoded, does not read `+` as a space (`?data=a+b` would reach a
///   service as `a+b`, where docs/rpc.md says `a b`) and turns `%FF` into U+FFFD instead of keeping it as sent;
/// - `URLEncodedFormDecoder` decodes into a `Decodable` type (the gateway passes a form on untyped), throws on a
///   repeated name (a console checkbox sends its hidden `false` and then `true`), drops a part without `=`, reads
///   `a[b]=1` as a nested map, leaves `+` in names as it came, and turns an escape that is not UTF-8 (`%FF`) into
///   U+FFFD where the OpenSense and OAuth APIs answer 400 "The form body is not valid URL encoding". Its percent
///   decoder is `package`-internal to Hummingbird, so it cannot be used on its own either.
enum URLEncodedForm {
    /// A form body's fields; nil when the body is not UTF-8 or a name or value is not valid percent-encoding (or
    /// not UTF-8 once decoded), which the routes answer 400.
    static func fields(_ data: Data) -> [String: [String]]? {
        guard let text = String(validating: data, as: UTF8.self) else { return nil }
        return fields(text[...], keepingInvalidPartsAsSent: false)
    }

    /// A query string's parameters. A name or value that is not valid percent-encoding is kept as sent (`%ZZ`
    /// stays `%ZZ`): a query is part of a link, and a link someone pasted is answered by the route, not refused here.
    static func query(_ query: String) -> [String: [String]] {
        if query.isEmpty { return [:] }
        return fields(query[...], keepingInvalidPartsAsSent: true) ?? [:]
    }

    /// The first value of a query parameter, where one request looks up a parameter of its own (the OwnYourData
    /// API's `access_token`, a console page's).
    static func first(_ name: String, inQuery query: String?) -> String? {
        query.flatMap { Self.query($0)[name]?.first }
    }

    /// Splits at the bytes `&` and `=`, wherever they are, as the WHATWG URL standard's parser does.
    private static func fields(_ text: Substring, keepingInvalidPartsAsSent lenient: Bool) -> [String: [String]]? {
        var fields: [String: [String]] = [:]
        let bytes = text.utf8
        var start = bytes.startIndex
        while start != bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.endIndex
            let pair = bytes[start..<end]
            start = end == bytes.endIndex ? end : bytes.index(after: end)
            if pair.isEmpty { continue }
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let name = pair[..<(equals ?? end)]
            let value = equals.map { pair[bytes.index(after: $0)...] } ?? pair[end...]
            guard let decodedName = decoded(name, lenient: lenient), let decodedValue = decoded(value, lenient: lenient) else { return nil }
            fields[decodedName, default: []].append(decodedValue)
        }
        return fields
    }

    /// A name or value decoded; most have neither `+` nor `%` and are copied as they are.
    private static func decoded(_ part: Substring.UTF8View.SubSequence, lenient: Bool) -> String? {
        guard part.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return String(Substring(part)) }
        if let text = percentDecoded(part) { return text }
        return lenient ? String(Substring(part)) : nil
    }

    /// `+` a space and `%XX` the byte XX; nil for a `%` without two hex digits, or bytes that are not UTF-8.
    private static func percentDecoded(_ part: Substring.UTF8View.SubSequence) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(part.count)
        var index = part.startIndex
        func next() -> UInt8? {
            guard index != part.endIndex else { return nil }
            defer { part.formIndex(after: &index) }
            return part[index]
        }
        while let byte = next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = next().flatMap(Hex.digitValue), let low = next().flatMap(Hex.digitValue) else { return nil }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
