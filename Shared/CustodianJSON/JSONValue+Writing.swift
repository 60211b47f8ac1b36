/// JSON text for a ``JSONValue``, byte for byte as `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes`
/// writes it (the form every answer has always had), without going through `Encodable`.
extension JSONValue {
    /// The value as UTF-8 JSON text.
    public var jsonBytes: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(into: &output)
        return output
    }

    /// `escapingSlashes`: `/` as `\/`, as `JSONEncoder` writes it without `.withoutEscapingSlashes` (the form
    /// upload hashes were first taken of, which a retry must match).
    public func write(into output: inout [UInt8], escapingSlashes: Bool = false) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): output.append(contentsOf: String(value).utf8)
        case .double(let value): Self.write(value, into: &output)
        case .string(let value): Self.write(value, into: &output, escapingSlashes: escapingSlashes)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                item.write(into: &output, escapingSlashes: escapingSlashes)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let fields):
            output.append(UInt8(ascii: "{"))
            for (index, key) in fields.keys.sorted().enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.write(key, into: &output, escapingSlashes: escapingSlashes)
                output.append(UInt8(ascii: ":"))
                fields[key]!.write(into: &output, escapingSlashes: escapingSlashes)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// `JSONEncoder`'s number form: Swift's shortest description, without a trailing `.0`.
    static func write(_ value: Double, into output: inout [UInt8]) {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        output.append(contentsOf: text.utf8)
    }

    /// A string literal: `"` and `\` escaped, control characters as `\n`-style or `\u00XX` escapes, the rest
    /// (slashes and non-ASCII included) as it is.
    public static func write(_ text: String, into output: inout [UInt8], escapingSlashes: Bool = false) {
        output.append(UInt8(ascii: "\""))
        var text = text
        let plain = text.withUTF8 { bytes -> Bool in
            // Most strings need no escape: copied whole.
            for byte in bytes
            where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || (escapingSlashes && byte == UInt8(ascii: "/")) {
                return false
            }
            output.append(contentsOf: bytes)
            return true
        }
        if plain {
            output.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "/") where escapingSlashes: output.append(contentsOf: [0x5C, 0x2F])
            case UInt8(ascii: "\""): output.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): output.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: output.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x08: output.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x0C: output.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            case 0x00..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                output.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
