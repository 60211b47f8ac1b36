@testable import CustodianJSON
import Foundation
import Testing

/// The hot path's JSON reader and writer must read and write exactly what Foundation's `JSONDecoder` and
/// `JSONEncoder` (sorted keys, unescaped slashes) read and write: answers keep their bytes, uploads their hashes.
@Suite("JSON values: the fast reader and writer agree with Foundation")
struct JSONValueCodecTests {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static let texts = [
        #"{"b":1,"a":[true,false,null,"x"],"B":{"z":-0.0,"y":5.0,"x":1e3,"w":1.5,"v":-9223372036854775808,"u":9223372036854775808}}"#,
        #"["a\u0001b\n\t\"\\/é\u007f\u2028\ud83d\ude00", "\b\f\r", "", " spaces ", "😀", "\u00e9"]"#,
        #"[0, -0, 1E2, 2.0e-1, 0.1, 123456789012345678901234567890, 1e-7, 1e21, 5e-324, 1.7976931348623157e308]"#,
        "  {\"nested\": [[[[{\"deep\": [1, 2, {\"k\": \"v\"}]}]]]], \"é\": 4, \"aa\": 5}  ",
        #"{"dup":1,"dup":2}"#, "[1,]", #"{"a":1 , }"#,
        "\"just a string\"", "42", "null", "true",
    ]

    @Test(arguments: texts)
    func readsAsFoundationReads(text: String) throws {
        let ours = try JSONValue.parse(Array(text.utf8))
        let theirs = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(ours == theirs, "\(text)")
    }

    @Test(arguments: texts)
    func writesAsFoundationWrites(text: String) throws {
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        let ours = String(decoding: value.jsonBytes, as: UTF8.self)
        let theirs = String(decoding: try Self.encoder.encode(value), as: UTF8.self)
        #expect(ours == theirs)
    }

    @Test(arguments: texts)
    func writesWithEscapedSlashesAsFoundationWritesWithSortedKeysAlone(text: String) throws {
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        var ours: [UInt8] = []
        value.write(into: &ours, escapingSlashes: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(String(decoding: ours, as: UTF8.self) == String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    @Test func everyControlCharacterAndRandomStringsAreWrittenAlike() throws {
        var generator = SystemRandomNumberGenerator()
        var strings = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        for _ in 0..<200 {
            let length = Int.random(in: 0..<20, using: &generator)
            strings.append(
                String((0..<length).map { _ in Character(UnicodeScalar(UInt32.random(in: 0...0x2FFF, using: &generator)).flatMap { $0 } ?? "x") }))
        }
        for string in strings {
            let value = JSONValue.string(string)
            #expect(
                String(decoding: value.jsonBytes, as: UTF8.self) == String(decoding: try Self.encoder.encode(value), as: UTF8.self),
                "\(Array(string.unicodeScalars))")
            #expect(try JSONValue.parse(value.jsonBytes) == value)
        }
        for _ in 0..<500 {
            let double = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator))
            guard double.isFinite else { continue }
            let value = JSONValue.double(double)
            #expect(String(decoding: value.jsonBytes, as: UTF8.self) == String(decoding: try Self.encoder.encode(value), as: UTF8.self))
        }
    }

    @Test func malformedTextIsRefusedWhereFoundationRefusesIt() {
        for text in [
            "", "{", "[,]", "{,}", "[1,,2]", "{\"a\":}", "{'a':1}", "01", "1.", ".5", "-", "1e", "tru", "\"\u{1}\"", "\"\\x\"", "\"\\ud800\"",
            "[1] 2", "1e400", "{\"a\" 1}", "\"unterminated", "NaN", "[1,2",
        ] {
            #expect(throws: JSONValue.ParseError.self, "\(text)") { try JSONValue.parse(Array(text.utf8)) }
            #expect((try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))) == nil, "Foundation reads \(text)")
        }
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse([0xFF, 0x22]) }
        #expect(throws: JSONValue.ParseError(reason: .invalidUTF8, offset: 1)) { try JSONValue.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func depthIsLimited() throws {
        let deep = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
        #expect(throws: JSONValue.ParseError(reason: .tooDeep, offset: 32)) { try JSONValue.parse(Array(deep.utf8), maximumDepth: 32) }
        _ = try JSONValue.parse(Array(deep.utf8), maximumDepth: 33)
    }
}

/// The gateway checks a body with `JSONValue.validate` and forwards its text; the service reads it with `parse`. Both must
/// take and refuse the same texts, or a body the gateway let through would fail in the service (a 500, not a 400).
@Suite("JSON values: checking without building agrees with reading")
struct JSONValidationTests {
    static let refused = [
        "", "{", "[,]", "{,}", "[1,,2]", "{\"a\":}", "{'a':1}", "01", "1.", ".5", "-", "1e", "tru", "\"\u{1}\"", "\"\\x\"",
        "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "[1] 2", "1e400", "-1e400", "{\"a\" 1}", "\"unterminated", "NaN", "[1,2",
        "{\"a\":1,,}", "[\"\\u12\"]", "{\"k\":\"v\"} x",
    ]

    static func validate(_ bytes: [UInt8], maximumDepth: Int = 512) throws(JSONValue.ParseError) -> JSONValue.Validation {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(JSONValue.ParseError) in try JSONValue.validate(raw, maximumDepth: maximumDepth) }
        }
        return try result.get()
    }

    @Test(arguments: JSONValueCodecTests.texts)
    func takesWhatTheReaderTakes(text: String) throws {
        let value = try JSONValue.parse(Array(text.utf8))
        let found = try Self.validate(Array(text.utf8))
        #expect(found.containsNUL == value.containsNUL)
    }

    @Test(arguments: refused)
    func refusesWhatTheReaderRefuses(text: String) {
        let theirs = #expect(throws: JSONValue.ParseError.self, "\(text)") { try JSONValue.parse(Array(text.utf8)) }
        let ours = #expect(throws: JSONValue.ParseError.self, "\(text)") { try Self.validate(Array(text.utf8)) }
        #expect(ours == theirs)
    }

    @Test func invalidUTF8AndDepthAreRefusedAlike() throws {
        for bytes: [UInt8] in [
            [0x22, 0xC3, 0x28, 0x22], [0xFF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xC0, 0xAF, 0x22],
            [0x5B, 0x22, 0x5C, 0x6E, 0xE2, 0x82, 0x22, 0x5D],
        ] {
            let theirs = #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(bytes) }
            let ours = #expect(throws: JSONValue.ParseError.self) { try Self.validate(bytes) }
            #expect(ours == theirs, "\(bytes)")
        }
        let deep = Array((String(repeating: "[{\"a\":", count: 16) + "1" + String(repeating: "}]", count: 16)).utf8)
        let theirs = #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(deep, maximumDepth: 31) }
        let ours = #expect(throws: JSONValue.ParseError.self) { try Self.validate(deep, maximumDepth: 31) }
        #expect(ours == theirs && ours?.reason == .tooDeep)
        _ = try Self.validate(deep, maximumDepth: 32)
        _ = try JSONValue.parse(deep, maximumDepth: 32)
    }

    @Test func aNULInAnyStringOrKeyIsFound() throws {
        for text in [#"{"a":"x\u0000y"}"#, #"{"a\u0000":1}"#, #"[1,["\u0000"]]"#, #"{"dup":"ok","dup":"\u0000"}"#] {
            #expect(try Self.validate(Array(text.utf8)).containsNUL, "\(text)")
        }
        for text in [#"{"a":"x\\u0000y"}"#, #"{"a":"\u0001"}"#, #""0""#, "0"] {
            #expect(try !Self.validate(Array(text.utf8)).containsNUL, "\(text)")
        }
    }

    /// Random documents: written, then spaced out and their escapes varied, must be taken and read back the same.
    @Test func randomDocumentsAreTakenAsTheyAreRead() throws {
        var generator = SystemRandomNumberGenerator()
        func document(_ depth: Int) -> JSONValue {
            switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &generator) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &generator))
            case 2: return .int(Int64.random(in: .min ... .max, using: &generator))
            case 3: return .double(Double.random(in: -1e300...1e300, using: &generator))
            case 4:
                return .string(
                    String(
                        (0..<Int.random(in: 0..<12, using: &generator)).map { _ in
                            Character(UnicodeScalar(UInt32.random(in: 0...0x2FFF, using: &generator)) ?? "x")
                        }))
            case 5: return .array((0..<Int.random(in: 0..<5, using: &generator)).map { _ in document(depth + 1) })
            default:
                return .object(
                    Dictionary(
                        (0..<Int.random(in: 0..<5, using: &generator)).map { index in ("k\(index)", document(depth + 1)) },
                        uniquingKeysWith: { first, _ in first }))
            }
        }
        for _ in 0..<300 {
            let value = document(0)
            let text = String(decoding: value.jsonBytes, as: UTF8.self)
            let spaced = text.replacingOccurrences(of: ",", with: " ,\n ").replacingOccurrences(of: ":", with: " : ")
            #expect(try Self.validate(Array(text.utf8)).containsNUL == value.containsNUL)
            // Spacing out may put a line break inside a string, which both must refuse.
            let theirs = try? JSONValue.parse(Array(spaced.utf8)), ours = try? Self.validate(Array(spaced.utf8))
            #expect((theirs == nil) == (ours == nil), "\(spaced)")
            if let theirs, let ours { #expect(ours.containsNUL == theirs.containsNUL) }
        }
    }
}
