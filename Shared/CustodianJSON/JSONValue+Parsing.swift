/// A strict RFC 8259 parser straight from UTF-8 bytes to ``JSONValue``, for the hot path of every request (the
/// gateway reads each body, each service each frame). `JSONDecoder` reaches a `JSONValue` only by trying each case
/// in turn and throwing on every miss; this reads each value once.
///
/// It reads what `JSONDecoder` reads, as it reads it, so that a value means the same whichever parser read it: an
/// integral number that fits an `Int64` is `.int` (`5`, `5.0`, `1e3`), any other `.double`; one beyond `Double`'s
/// range (`1e400`) is an error; a key given twice keeps its first value; a trailing comma (`[1,]`) is allowed.
extension JSONValue {
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public enum Reason: Equatable, Sendable {
            case syntax
            case tooDeep
            case invalidUTF8
            case numberOutOfRange
        }

        public var reason: Reason
        public var offset: Int

        public var description: String { "JSON \(reason) at byte \(offset)" }
    }

    /// The value `bytes` hold, nested at most `maximumDepth` arrays and objects deep.
    public static func parse(_ bytes: UnsafeRawBufferPointer, maximumDepth: Int = 512) throws(ParseError) -> JSONValue {
        var parser = Parser(bytes: bytes, maximumDepth: maximumDepth)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw ParseError(reason: .syntax, offset: parser.index) }
        return value
    }

    public static func parse(_ bytes: some Collection<UInt8>, maximumDepth: Int = 512) throws(ParseError) -> JSONValue {
        let result: Result<JSONValue, ParseError>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(ParseError) in try parse(UnsafeRawBufferPointer(buffer), maximumDepth: maximumDepth) }
        }
        if let result { return try result.get() }
        return try parse(Array(bytes), maximumDepth: maximumDepth)
    }

    /// Checks that `bytes` are JSON that ``parse(_:maximumDepth:)-(UnsafeRawBufferPointer,_)`` reads (the same code reads
    /// them, building nothing), and whether a string or key in them holds U+0000. The gateway passes a checked body on as
    /// it came instead of building a tree it would only write again.
    public static func validate(_ bytes: UnsafeRawBufferPointer, maximumDepth: Int = 512) throws(ParseError) -> Validation {
        var parser = Parser(bytes: bytes, maximumDepth: maximumDepth, building: false)
        parser.skipWhitespace()
        _ = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw ParseError(reason: .syntax, offset: parser.index) }
        return Validation(containsNUL: parser.sawNUL)
    }

    /// What ``validate(_:maximumDepth:)`` found besides validity.
    public struct Validation: Sendable, Equatable {
        public var containsNUL: Bool
    }

    private struct Parser {
        let bytes: UnsafeRawBufferPointer
        let maximumDepth: Int
        /// False: check the text only, and build no value (every value read is `.null`).
        let building: Bool
        var index = 0
        /// A string or key decoded to text that holds U+0000 (only an escape can write one).
        var sawNUL = false

        init(bytes: UnsafeRawBufferPointer, maximumDepth: Int, building: Bool = true) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
            self.building = building
        }

        func error(_ reason: ParseError.Reason = .syntax) -> ParseError { ParseError(reason: reason, offset: index) }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(ParseError) -> JSONValue {
            guard index < bytes.count else { throw error() }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""):
                let text = try string()
                return building ? .string(text) : .null
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw error()
            }
        }

        mutating func literal(_ word: StaticString) throws(ParseError) {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw error() }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw error() }
            index += count
        }

        mutating func object(depth: Int) throws(ParseError) -> JSONValue {
            guard depth <= maximumDepth else { throw error(.tooDeep) }
            index += 1
            var fields: [String: JSONValue] = [:]
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(fields)
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error() }
                let key = try string()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error() }
                index += 1
                skipWhitespace()
                let member = try value(depth: depth)
                if building, fields[key] == nil {
                    // Room for a few members at once: growing one slot at a time cost a small object three allocations.
                    if fields.isEmpty { fields.reserveCapacity(6) }
                    fields[key] = member
                }
                skipWhitespace()
                guard index < bytes.count else { throw error() }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    skipWhitespace()
                    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                        index += 1
                        return .object(fields)
                    }
                } else if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(fields)
                } else {
                    throw error()
                }
            }
        }

        mutating func array(depth: Int) throws(ParseError) -> JSONValue {
            guard depth <= maximumDepth else { throw error(.tooDeep) }
            index += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            while true {
                skipWhitespace()
                let item = try value(depth: depth)
                if building { items.append(item) }
                skipWhitespace()
                guard index < bytes.count else { throw error() }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    skipWhitespace()
                    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                        index += 1
                        return .array(items)
                    }
                } else if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(items)
                } else {
                    throw error()
                }
            }
        }

        /// A string (the empty one when not building, unless it had escapes); `index` is at its opening quote.
        mutating func string() throws(ParseError) -> String {
            index += 1
            let start = index
            var ascii = true
            // The common case: no escapes, so the bytes are the string.
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    // ASCII is valid UTF-8: a check that builds nothing needs no text.
                    let text = !ascii ? try utf8(start..<index) : building ? asciiText(start..<index) : ""
                    index += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") { break }
                guard byte >= 0x20 else { throw error() }
                if byte >= 0x80 { ascii = false }
                index += 1
            }
            var scalars: [UInt8] = Array(bytes[start..<index])
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    guard let text = String(validating: scalars, as: UTF8.self) else { throw error(.invalidUTF8) }
                    if scalars.contains(0) { sawNUL = true }
                    return text
                case UInt8(ascii: "\\"):
                    index += 1
                    guard index < bytes.count else { throw error() }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""): scalars.append(0x22)
                    case UInt8(ascii: "\\"): scalars.append(0x5C)
                    case UInt8(ascii: "/"): scalars.append(0x2F)
                    case UInt8(ascii: "b"): scalars.append(0x08)
                    case UInt8(ascii: "f"): scalars.append(0x0C)
                    case UInt8(ascii: "n"): scalars.append(0x0A)
                    case UInt8(ascii: "r"): scalars.append(0x0D)
                    case UInt8(ascii: "t"): scalars.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800..<0xDC00).contains(scalar) {
                            // A high surrogate must be followed by an escaped low one.
                            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                                throw error()
                            }
                            index += 2
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw error() }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00..<0xE000).contains(scalar) {
                            throw error()
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { throw error() }
                        scalars.append(contentsOf: String(Character(unicode)).utf8)
                    default:
                        throw error()
                    }
                default:
                    guard byte >= 0x20 else { throw error() }
                    scalars.append(byte)
                    index += 1
                }
            }
            throw error()
        }

        mutating func hex4() throws(ParseError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw error() }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw error()
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }

        /// Bytes known to be ASCII: valid UTF-8 without the generic validation, whose metadata look-ups cost more than
        /// the copy on short strings.
        func asciiText(_ range: Range<Int>) -> String {
            String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]).assumingMemoryBound(to: UInt8.self), as: UTF8.self)
        }

        func utf8(_ range: Range<Int>) throws(ParseError) -> String {
            guard let text = String(validating: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self) else {
                throw ParseError(reason: .invalidUTF8, offset: range.lowerBound)
            }
            return text
        }

        mutating func number() throws(ParseError) -> JSONValue {
            let start = index
            var negative = false
            if bytes[index] == UInt8(ascii: "-") {
                negative = true
                index += 1
            }
            // Integer part: 0, or a non-zero digit and more digits.
            guard index < bytes.count, isDigit(bytes[index]) else { throw error() }
            var integer: Int64 = 0
            var overflow = false
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                while index < bytes.count, isDigit(bytes[index]) {
                    let digit = Int64(bytes[index] - UInt8(ascii: "0"))
                    let (times, overflowTimes) = integer.multipliedReportingOverflow(by: 10)
                    // Negative numbers accumulate downwards, so that Int64.min fits.
                    let (next, overflowAdd) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
                    if overflowTimes || overflowAdd { overflow = true }
                    integer = next
                    index += 1
                }
            }
            var isIntegerLiteral = true
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                isIntegerLiteral = false
                index += 1
                guard index < bytes.count, isDigit(bytes[index]) else { throw error() }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                isIntegerLiteral = false
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard index < bytes.count, isDigit(bytes[index]) else { throw error() }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if isIntegerLiteral && !overflow { return .int(integer) }
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            guard let double = Double(text), double.isFinite else { throw ParseError(reason: .numberOutOfRange, offset: start) }
            if let exact = Int64(exactly: double) { return .int(exact) }
            return .double(double)
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    }
}
