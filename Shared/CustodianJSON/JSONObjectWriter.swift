/// Writes a JSON object member by member, its keys given in sorted order (as ``JSONValue/write(into:escapingSlashes:)``
/// writes them), without building the object first: the frames every call carries are written this way.
public struct JSONObjectWriter {
    private var first = true

    public init(into output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
    }

    /// Writes the key; the caller writes the member's value next.
    public mutating func key(_ key: StaticString, into output: inout [UInt8]) {
        if !first { output.append(UInt8(ascii: ",")) }
        first = false
        output.append(UInt8(ascii: "\""))
        output.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        output.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    public mutating func string(_ key: StaticString, _ value: String, into output: inout [UInt8]) {
        self.key(key, into: &output)
        JSONValue.write(value, into: &output)
    }

    public func end(into output: inout [UInt8]) {
        output.append(UInt8(ascii: "}"))
    }

    /// A JSON object of strings, keys sorted.
    public static func write(_ fields: [String: String], into output: inout [UInt8]) {
        write(fields, into: &output) { value, output in JSONValue.write(value, into: &output) }
    }

    /// A JSON object of arrays of strings, keys sorted.
    public static func write(_ fields: [String: [String]], into output: inout [UInt8]) {
        write(fields, into: &output) { values, output in
            output.append(UInt8(ascii: "["))
            for (position, value) in values.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                JSONValue.write(value, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        }
    }

    private static func write<Value>(
        _ fields: [String: Value], into output: inout [UInt8],
        value writeValue: (Value, inout [UInt8]) -> Void
    ) {
        output.append(UInt8(ascii: "{"))
        for (index, key) in fields.keys.sorted().enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            JSONValue.write(key, into: &output)
            output.append(UInt8(ascii: ":"))
            writeValue(fields[key]!, &output)
        }
        output.append(UInt8(ascii: "}"))
    }
}
