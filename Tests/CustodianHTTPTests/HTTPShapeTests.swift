import CustodianHTTP
@testable import CustodianJSON
import CustodianRPC
import Foundation
import NIOCore
import Testing

/// The shapes every routed call carries are written member by member and read straight from the tree: byte for byte
/// what their `Codable` forms write, and the same values their `Codable` forms read.
@Suite("HTTP shapes in frames")
struct HTTPShapeTests {
    static let inputs = [
        HTTPInput(),
        HTTPInput(
            body: ["b": 1, "a": [true, "é\n"]], path: ["repo": "oyd.location", "id": "7"], query: ["page": ["1", "2"], "z": [""]],
            headers: ["user-agent": "curl/8"], cursor: "next/1"),
        HTTPInput(body: "text", query: ["q": ["a&b"]]),
    ]
    static let replies = [
        RawHTTPReply(status: 201, headers: ["Content-Type": "text/csv", "Link": "<a>; rel=\"next\""], body: Data("a,b\n".utf8)),
        RawHTTPReply(),
    ]
    static let pages = [
        StreamPage(headers: ["Content-Type": "application/x-ndjson"], chunk: "{\"a\":1}\n", next: "cursor/2"),
        StreamPage(chunk: "", next: nil),
    ]

    /// What the type's own writer writes, and what its `Codable` form writes.
    static func written<T: JSONValueWritable>(_ value: T) throws -> (own: String, codable: String) {
        var own: [UInt8] = []
        value.writeJSON(into: &own)
        return (String(decoding: own, as: UTF8.self), String(decoding: try JSONValueEncoder().encode(value).jsonBytes, as: UTF8.self))
    }

    @Test func writersWriteWhatTheCodableFormsWrite() throws {
        for input in Self.inputs {
            let text = try Self.written(input)
            #expect(text.own == text.codable)
        }
        for reply in Self.replies {
            let text = try Self.written(reply)
            #expect(text.own == text.codable)
        }
        for page in Self.pages {
            let text = try Self.written(page)
            #expect(text.own == text.codable)
        }
    }

    @Test func readersReadWhatTheCodableFormsRead() throws {
        for input in Self.inputs {
            let tree = try JSONValueEncoder().encode(input)
            let read = try #require(HTTPInput(json: tree))
            let decoded = try JSONDecoder().decode(HTTPInput.self, from: Data(tree.jsonBytes))
            #expect(read.body == decoded.body && read.path == decoded.path && read.query == decoded.query)
            #expect(read.headers == decoded.headers && read.cursor == decoded.cursor)
        }
        for reply in Self.replies {
            let read = try #require(RawHTTPReply(json: try JSONValueEncoder().encode(reply)))
            #expect(read.status == reply.status && read.headers == reply.headers && read.body == reply.body)
        }
        for page in Self.pages {
            let read = try #require(StreamPage(json: try JSONValueEncoder().encode(page)))
            #expect(read.headers == page.headers && read.chunk == page.chunk && read.next == page.next)
        }
    }

    /// A reader refuses what its `Codable` form refuses, so that the decoder falls back and names the member.
    @Test func readersRefuseWhatTheCodableFormsRefuse() throws {
        let wrong: [JSONValue] = [
            ["path": [:], "query": [:]],
            ["body": nil, "path": ["id": 7], "query": [:]],
            ["body": nil, "path": [:], "query": ["page": "1"]],
            ["body": nil, "path": [:], "query": [:], "headers": ["a": 1]],
            ["body": nil, "path": [:], "query": [:], "cursor": 5],
        ]
        for tree in wrong {
            #expect(HTTPInput(json: tree) == nil, "\(tree)")
            #expect(throws: DecodingError.self, "\(tree)") { try JSONDecoder().decode(HTTPInput.self, from: Data(tree.jsonBytes)) }
            #expect(throws: DecodingError.self, "\(tree)") { try JSONValueDecoder().decode(HTTPInput.self, from: tree) }
        }
        // Optional members may be null: the reader leaves that to `init(from:)`, which reads it as absent.
        let nullHeaders: JSONValue = ["body": nil, "path": [:], "query": [:], "headers": nil]
        #expect(try JSONValueDecoder().decode(HTTPInput.self, from: nullHeaders).headers == [:])
    }

    @Test func aCheckedBodyKnowsItsNUL() throws {
        let input = HTTPInput(checkedBody: try CheckedJSON(ByteBuffer(string: #"{"name":"a\u0000b"}"#), maximumDepth: 32))
        #expect(input.containsNUL)
        #expect(!HTTPInput(checkedBody: try CheckedJSON(ByteBuffer(string: #"{"name":"ab"}"#), maximumDepth: 32)).containsNUL)
        #expect(throws: JSONValue.ParseError(reason: .tooDeep, offset: 2)) { try CheckedJSON(ByteBuffer(string: "[[[1]]]"), maximumDepth: 2) }
    }

    @Test func aNULAnywhereInTheRequestIsFound() {
        #expect(HTTPInput(body: ["a": ["x\u{0}"]]).containsNUL)
        #expect(HTTPInput(body: ["a\u{0}": 1]).containsNUL)
        #expect(HTTPInput(path: ["id": "1\u{0}"]).containsNUL)
        #expect(HTTPInput(query: ["q": ["", "\u{0}"]]).containsNUL)
        #expect(HTTPInput(query: ["q\u{0}": []]).containsNUL)
        #expect(HTTPInput(headers: ["user-agent": "\u{0}"]).containsNUL)
        #expect(!HTTPInput(body: ["a": ["x\\u0000"]], path: ["id": "1"], query: ["q": ["0"]], headers: ["user-agent": "curl"]).containsNUL)
    }
}
