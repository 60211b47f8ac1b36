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

/// Answers are written member by member too: byte for byte what writing them as a tree gave, so that every caller reads
/// the same frames as before.
@Suite("Response frames")
struct ResponseFrameTests {
    static let ids: [RPCID?] = [.number(42), .string("call-\"7\""), nil]

    @Test func errorFramesAreWrittenAsTheTreeWroteThem() {
        let dispatcher = RPCDispatcher(methods: RPCMethods(), logger: .init(label: "test"), errorMapper: { _ in nil })
        let errors = [
            RPCError(.badRequest, reason: "missing_device_id", message: "Missing device_id parameter \"é\""),
            RPCError(.unavailable, reason: "database_unavailable", message: "down", retryAfter: 2),
            RPCError.validation(location: ["body", "activation_token"], message: "field required", type: "value_error.missing"),
        ]
        for error in errors {
            for id in Self.ids {
                let tree = JSONValue.object(["jsonrpc": "2.0", "id": id?.json ?? .null, "error": error.object.json]).jsonBytes
                #expect(Array(buffer: dispatcher.encodeError(error, id: id)) == tree, "\(error)")
            }
        }
    }

    @Test func resultFramesAreWrittenAsTheTreeWroteThem() throws {
        let reply = RawHTTPReply(status: 201, headers: ["Content-Type": "text/csv", "Link": "<a>; rel=\"next\""], body: Data("a,b\n".utf8))
        let page = StreamPage(headers: ["Content-Type": "application/x-ndjson"], chunk: "{\"a\":1}\n", next: "cursor/2")
        let value: JSONValue = ["server_time": "2026-11-26T19:00:00", "size": 1, "nested": [nil, true, .double(0.5)]]
        for id in Self.ids {
            func tree(_ result: JSONValue) -> [UInt8] { JSONValue.object(["jsonrpc": "2.0", "id": id?.json ?? .null, "result": result]).jsonBytes }
            #expect(Array(buffer: try RPCMethods.encode(value, id: id)) == tree(value))
            #expect(Array(buffer: try RPCMethods.encode(reply, id: id)) == tree(reply.json))
            #expect(Array(buffer: try RPCMethods.encode(page, id: id)) == tree(page.json))
            #expect(Array(buffer: try RPCMethods.encode(Empty(), id: id)) == tree(.object([:])))
        }
    }
}
