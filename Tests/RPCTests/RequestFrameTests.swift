import Foundation
import NIOCore
import Testing
@testable import CustodianRPC

/// Request frames are written member by member, without a tree; a body the gateway checked goes in as the client sent it.
@Suite("Request frames")
struct RequestFrameTests {
    static let contexts = [
        CallContext(requestID: "r-1"),
        CallContext(requestID: "r-2 \"quoted\"", deadline: Date(timeIntervalSince1970: 1_800_000_000.123),
                    principal: Principal(kind: .device, id: "42", session: "s", scopes: ["a", "b/c"]), credential: Credential(token: "t", expectedKind: .user)),
        CallContext(requestID: "r-3", principal: Principal(kind: .admin, id: "x")),
    ]

    static let inputs = [
        HTTPInput(),
        HTTPInput(body: ["b": 1, "a": [true, "é\n"]], path: ["repo": "oyd.location", "id": "7"], query: ["page": ["1", "2"], "z": [""]],
                  headers: ["user-agent": "curl/8"], cursor: "next/1"),
        HTTPInput(body: "text", query: ["q": ["a&b"]]),
    ]

    /// What the frame was when it was written from a tree (sorted keys throughout).
    static func treeFrame(id: RPCID, method: String, context: CallContext, input: HTTPInput) -> [UInt8] {
        JSONValue.object([
            "jsonrpc": "2.0", "id": id.json, "method": .string(method),
            "params": .object(["context": context.json, "input": input.json]),
        ]).jsonBytes
    }

    @Test func framesAreWrittenByteForByteAsTheTreeWroteThem() throws {
        for context in Self.contexts {
            for input in Self.inputs {
                for id in [RPCID.number(7), .string("call-\"1\"")] {
                    let frame = try RPCClient.requestFrame(id: id, method: "devices.upload", context: context, input: input)
                    #expect(Array(buffer: frame) == Self.treeFrame(id: id, method: "devices.upload", context: context, input: input))
                }
            }
        }
    }

    @Test func aCheckedBodyIsSentAsItCameAndReadAsTheSameValue() throws {
        let text = "{ \"b\" : [1, 2.50, 1e3, \"\\u00e9\\/\"],\n \"a\": {\"dup\": 1, \"dup\": 2}, \"n\": null }"
        let checked = try CheckedJSON(ByteBuffer(string: text), maximumDepth: 32)
        let input = HTTPInput(checkedBody: checked, path: ["repo": "r"], query: ["page": ["2"]])
        let frame = try RPCClient.requestFrame(id: .number(1), method: "vault.items.write", context: Self.contexts[1], input: input)
        #expect(String(buffer: frame).contains(text), "the body's own bytes")
        let fields = try #require(try JSONValue.parse(Array(buffer: frame))["params"])
        let read = try #require(HTTPInput(json: fields["input"]))
        #expect(read.body == (try JSONValue.parse(Array(text.utf8))))
        #expect(read.body == ["b": [1, .double(2.5), 1000, "é/"], "a": ["dup": 1], "n": nil])
        #expect(read.path == ["repo": "r"] && read.query == ["page": ["2"]])
        #expect(input.body == read.body, "the gateway reads the same value when it needs one")
    }

    @Test func aCheckedBodyKnowsItsNUL() throws {
        let input = HTTPInput(checkedBody: try CheckedJSON(ByteBuffer(string: #"{"name":"a\u0000b"}"#), maximumDepth: 32))
        #expect(input.containsNUL)
        #expect(!HTTPInput(checkedBody: try CheckedJSON(ByteBuffer(string: #"{"name":"ab"}"#), maximumDepth: 32)).containsNUL)
        #expect(throws: JSONValue.ParseError(reason: .tooDeep, offset: 2)) { try CheckedJSON(ByteBuffer(string: "[[[1]]]"), maximumDepth: 2) }
    }
}
