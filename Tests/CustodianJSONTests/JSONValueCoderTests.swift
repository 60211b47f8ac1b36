import CustodianJSON
import Foundation
import Testing

/// Typed values are read from and written to trees by `JSONValueDecoder` and `JSONValueEncoder`: they must read what
/// Foundation's `JSONDecoder` reads from the same text (and fail where it fails, with an error `describe` words alike),
/// and write what `JSONEncoder` writes, as a value.
@Suite("Typed values to and from trees: as Foundation reads and writes them")
struct JSONValueCoderTests {
    enum Kind: String, Codable, Equatable { case a, b }

    struct Inner: Codable, Equatable {
        var x: Int
        var tags: [String]
    }

    struct Sample: Codable, Equatable {
        var name: String
        var count: Int
        var ratio: Double
        var flag: Bool
        var note: String?
        var inner: Inner?
        var list: [Inner]?
        var map: [String: Int]?
        var numbers: [Int: String]?
        var any: JSONValue?
        var kind: Kind?
        var when: Date?
        var data: Data?
        var url: URL?
        var small: Int16?
        var single: Float?
        @ExplicitNull var explicit: String? = nil
    }

    /// An object with the required members, `members` replacing or added to them (no key twice).
    static func object(_ members: String...) -> String {
        var fields = [("name", #""n""#), ("count", "1"), ("ratio", "0.5"), ("flag", "true")]
        for member in members {
            let parts = member.split(separator: "=", maxSplits: 1).map(String.init)
            if let index = fields.firstIndex(where: { $0.0 == parts[0] }) { fields[index].1 = parts[1] } else { fields.append((parts[0], parts[1])) }
        }
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// Texts both decoders read, and read alike.
    static let readable = [
        object(),
        object(#"name="é\/\u0000""#, "count=-9223372036854775808", "ratio=1e3", "flag=false"),
        object("count=5.0", "ratio=3", "single=null", "small=null"),
        object("note=null", "inner=null", "list=null", "explicit=null"),
        object(#"note="x""#, #"inner={"x":1e2,"tags":[]}"#, #"list=[{"x":0,"tags":["a","b"]}]"#, #"map={"k":1,"":2}"#),
        object(#"numbers={"1":"a","-2":"b"}"#, #"any={"deep":[1,2.5,null,"s",{}]}"#, #"kind="b""#),
        object("when=1.5", #"data="AAEC/w==""#, #"url="https://example.org/a?b=c""#, "small=-300", "single=0.1", #"explicit="e""#),
        #"{"name":"first of two","count":1,"ratio":0.5,"flag":true,"extra":[1,2,3],"name":"second"}"#,
    ]

    /// Texts both refuse, each error worded alike by `describe`.
    static let refused = [
        "{}", "[]", "null", "5", "\"text\"",
        #"{"count":1,"ratio":0.5,"flag":true}"#,
        object("name=5"), object("name=null"), object(#"count="1""#), object("count=true"),
        object(#"ratio="x""#), object("flag=1"), object("flag=null"),
        object("note=5"), object("inner=[]"), object(#"inner={"tags":[]}"#), object(#"inner={"x":1,"tags":[1]}"#),
        object(#"inner={"x":1,"tags":{}}"#), object(#"list=[{"x":1,"tags":[]},5]"#), object("list=[null]"), object(#"inner={"x":null,"tags":[]}"#),
        object(#"inner={"x":1,"tags":[null]}"#), object(#"map={"k":null}"#), object("ratio=null"),
        object("list={}"), object(#"map={"k":"v"}"#), object("map=[]"), object(#"numbers={"x":"a"}"#),
        object(#"kind="c""#), object("kind=1"), object(#"when="yesterday""#), object(#"data="!!""#),
        object("data=5"), object(#"url="""#), object("url=[]"), object("explicit=5"),
    ]

    static func foundation(_ text: String) throws -> Sample {
        try JSONDecoder().decode(Sample.self, from: Data(text.utf8))
    }

    static func ours(_ text: String) throws -> Sample {
        try JSONValueDecoder().decode(Sample.self, from: try JSONValue.parse(Array(text.utf8)))
    }

    @Test(arguments: readable)
    func readsWhatFoundationReads(text: String) throws {
        #expect(try Self.ours(text) == (try Self.foundation(text)))
    }

    @Test(arguments: refused)
    func refusesWhatFoundationRefusesInTheSameWords(text: String) throws {
        let theirs = try #require(throws: DecodingError.self) { try Self.foundation(text) }
        let ours = try #require(throws: DecodingError.self) { try Self.ours(text) }
        #expect(describe(ours) == describe(theirs), "\(text)")
        #expect(Self.kind(ours) == Self.kind(theirs), "\(text): \(ours)")
    }

    static func kind(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound: "keyNotFound"
        case .typeMismatch: "typeMismatch"
        case .valueNotFound: "valueNotFound"
        case .dataCorrupted: "dataCorrupted"
        @unknown default: "unknown"
        }
    }

    /// Where Foundation says only that the data is corrupt, somewhere, the tree's reader names the member.
    @Test func aNumberThatFitsNoFieldIsATypeMismatchAtItsMember() throws {
        for (member, number) in [("count", "1.5"), ("count", "1e20"), ("count", "9223372036854775808"), ("small", "40000")] {
            let text = Self.object("\(member)=\(number)")
            _ = try #require(throws: DecodingError.self) { try Self.foundation(text) }
            let ours = try #require(throws: DecodingError.self) { try Self.ours(text) }
            #expect(describe(ours) == "\(member) must be an integer", "\(text)")
        }
        let float = try #require(throws: DecodingError.self) { try Self.ours(Self.object("single=1e300")) }
        #expect(describe(float) == "single must be a number")
    }

    @Test func aPathGivenIsWhereErrorsPoint() throws {
        enum Key: String, CodingKey { case params, input }
        let error = try #require(throws: DecodingError.self) {
            try JSONValueDecoder().decode(Inner.self, from: ["x": 1], codingPath: [Key.params, Key.input])
        }
        #expect(describe(error) == "params.input.tags is required")
    }

    static let samples = [
        Sample(name: "n/é\"", count: .min, ratio: -0.0, flag: true),
        Sample(
            name: "", count: 0, ratio: 1e-7, flag: false, note: "x", inner: Inner(x: 7, tags: ["a/b"]), list: [Inner(x: 1, tags: [])],
            map: ["k": 1, "": 2], numbers: [1: "a", -2: "b"], any: ["deep": [1, .double(2.5), nil, "s", [:]]], kind: .a,
            when: Date(timeIntervalSinceReferenceDate: 1.25), data: Data([0, 1, 2, 255]), url: URL(string: "https://example.org/a?b=c"),
            small: -300, single: 0.1, explicit: nil),
    ]

    /// Byte for byte what `JSONEncoder` writes with sorted keys and slashes as they are, as every frame is written.
    @Test(arguments: samples)
    func writesWhatFoundationWrites(sample: Sample) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(
            String(decoding: try JSONValueEncoder().encode(sample).jsonBytes, as: UTF8.self)
                == String(decoding: try encoder.encode(sample), as: UTF8.self))
        #expect(try JSONValueDecoder().decode(Sample.self, from: JSONValueEncoder().encode(sample)) == sample)
    }

    @Test func writesTheTreeItBuilds() throws {
        let sample = Self.samples[1]
        var written: [UInt8] = []
        try JSONValueEncoder().write(sample, into: &written)
        #expect(written == (try JSONValueEncoder().encode(sample).jsonBytes))
    }

    /// A container handed out before it is filled, and a superclass's encoder, end up in the tree.
    struct Nested: Codable, Equatable {
        var a: Int
        var b: [String]
        var c: Int

        enum Keys: String, CodingKey { case outer, list, parent }
        enum Inner: String, CodingKey { case a }

        init(a: Int, b: [String], c: Int) {
            self.a = a
            self.b = b
            self.c = c
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var outer = container.nestedContainer(keyedBy: Inner.self, forKey: .outer)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            var parent = container.superEncoder(forKey: .parent).singleValueContainer()
            try outer.encode(a, forKey: .a)
            for item in b { try list.encode(item) }
            var nested = list.nestedUnkeyedContainer()
            try nested.encode(c)
            try parent.encode(c)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            a = try container.nestedContainer(keyedBy: Inner.self, forKey: .outer).decode(Int.self, forKey: .a)
            var list = try container.nestedUnkeyedContainer(forKey: .list)
            var items: [String] = []
            while let count = list.count, items.count < count - 1 { items.append(try list.decode(String.self)) }
            b = items
            var last = try list.nestedUnkeyedContainer()
            _ = try last.decode(Int.self)
            c = try container.superDecoder(forKey: .parent).singleValueContainer().decode(Int.self)
        }
    }

    @Test func nestedContainersAndSuperEncodersAreWritten() throws {
        let value = Nested(a: 1, b: ["x", "y"], c: 3)
        let tree = try JSONValueEncoder().encode(value)
        #expect(tree == ["outer": ["a": 1], "list": ["x", "y", [3]], "parent": 3])
        #expect(tree == (try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))))
        #expect(try JSONValueDecoder().decode(Nested.self, from: tree) == value)
    }

    @Test func whatATreeCannotHoldIsAnError() throws {
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(["n": UInt64.max]) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(Float.infinity) }
        #expect(try JSONValueEncoder().encode(UInt64(Int64.max)) == .int(.max))
    }

    /// A type that reads or writes itself is asked first; its `Codable` form is the fallback and the definition.
    struct Point: Codable, Equatable, JSONValueReadable, JSONValueWritable {
        var x: Int
        static let reads = Counter()

        init(x: Int) { self.x = x }

        init?(json: JSONValue) {
            Self.reads.count += 1
            guard case .object(let fields) = json, case .int(let x) = fields["x"], let value = Int(exactly: x) else { return nil }
            self.x = value
        }

        func writeJSON(into output: inout [UInt8]) {
            output.append(contentsOf: #"{"x":\#(x)}"#.utf8)
        }
    }

    enum Key: String, CodingKey { case input }

    final class Counter: @unchecked Sendable {
        var count = 0
    }

    @Test func aTypeThatReadsItselfIsAskedFirst() throws {
        let before = Point.reads.count
        #expect(try JSONValueDecoder().decode(Point.self, from: ["x": 4]) == Point(x: 4))
        #expect(try JSONValueDecoder().decode([Point].self, from: [["x": 1], ["x": 2]]) == [Point(x: 1), Point(x: 2)])
        #expect(Point.reads.count == before + 3)
        // Its reader refuses a string; `init(from:)` names the member.
        let error = try #require(throws: DecodingError.self) { try JSONValueDecoder().decode(Point.self, from: ["x": "4"]) }
        #expect(describe(error) == "x must be an integer")
        // Settled once, for a method's input: the same reading, the same fallback.
        for reading in [JSONValueDecoder.Reading(Point.self), JSONValueDecoder.Reading(reader: { Point(json: $0) })] {
            #expect(try reading.decode(from: ["x": 6]) == Point(x: 6))
            let error = try #require(throws: DecodingError.self) { try reading.decode(from: ["x": "6"], codingPath: [Key.input]) }
            #expect(describe(error) == "input.x must be an integer")
        }
        #expect(try JSONValueDecoder.Reading(JSONValue.self).decode(from: [1, "a"]) == [1, "a"])
        var written: [UInt8] = []
        try JSONValueEncoder().write(Point(x: 5), into: &written)
        #expect(String(decoding: written, as: UTF8.self) == #"{"x":5}"#)
    }
}
