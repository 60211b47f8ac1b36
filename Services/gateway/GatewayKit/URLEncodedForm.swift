import Foundation

/// `a=1&b=x+y&b=z` as HTML forms send it: each name's values in order, `+` a space, percent-escapes decoded.
enum URLEncodedForm {
    /// Nil when the text is not UTF-8 or a part is not valid percent-encoding.
    static func fields(_ data: Data) -> [String: [String]]? {
        guard let text = String(validating: data, as: UTF8.self) else { return nil }
        var fields: [String: [String]] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String? { text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = decode(parts[0]), let value = parts.count > 1 ? decode(parts[1]) : "" else { return nil }
            fields[name, default: []].append(value)
        }
        return fields
    }
}
