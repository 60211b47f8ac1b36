/// Lays out JSON text two spaces a level. It works on the text rather than parsing and encoding again, so keys
/// keep the server's order and numbers and strings stay exactly as sent (a round trip through Foundation would
/// sort the keys and may print 52.0907 as 52.090699999999998).
enum IndentedJSON {
    /// `json` must be valid JSON; white space outside strings is replaced by the layout's own.
    static func format(_ json: some Collection<UInt8>) -> String {
        let bytes = Array(json)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 2)
        var depth = 0
        var inString = false
        var escaped = false
        var index = 0

        func lineBreak() {
            output.append(UInt8(ascii: "\n"))
            output += [UInt8](repeating: UInt8(ascii: " "), count: 2 * depth)
        }
        func isSpace(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
        }

        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if inString {
                output.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case _ where isSpace(byte):
                continue
            case UInt8(ascii: "\""):
                inString = true
                output.append(byte)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var next = index
                while next < bytes.count && isSpace(bytes[next]) { next += 1 }
                let closing = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                // An empty object or array stays on one line: `{}`, `[]`.
                if next < bytes.count && bytes[next] == closing {
                    output += [byte, closing]
                    index = next + 1
                    continue
                }
                output.append(byte)
                depth += 1
                lineBreak()
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth = max(0, depth - 1)
                lineBreak()
                output.append(byte)
            case UInt8(ascii: ","):
                output.append(byte)
                lineBreak()
            case UInt8(ascii: ":"):
                output += [byte, UInt8(ascii: " ")]
            default:
                output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
