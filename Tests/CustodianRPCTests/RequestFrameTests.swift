import CustodianHTTP
import CustodianJSON
import Foundation
import Logging
import NIOCore
import Testing
@testable import CustodianRPC

/// Request frames are written member by member, without a tree; a body the gateway checked goes in as the client sent it.
@Suite("Request frames")
struct RequestFrameTests {
    static let contexts = [
        CallContext(requestID: "r-1"),
        CallContext(
            requestID: "r-2 \"quoted\"", deadline: Date(timeIntervalSince1970: 1_800_000_000.123),
            principal: Principal(kind: .device, id: "42", session: "s", scopes: ["a", "b/c"]), credential: Credential(token: "t", expectedKind: .user)
        ),
        CallContext(requestID: "r-3", principal: Principal(kind: .admin, id: "x")),
        // An admin identity's label travels with it, for the services' logs and the audit log.
        CallContext(requestID: "r-4", principal: Principal(kind: .admin, id: "y", scopes: ["owner"], name: "Ana \"field\" é")),
        // What a request marked synthetic creates is marked too (docs/operations.md, "Synthetic data"); unmarked frames carry no key.
        { () -> CallContext in
            var context = CallContext(requestID: "r-5")
            context.synthetic = true
            return context
        }(),
        // The caller's span, which the called method's continues (docs/operations.md, "Tracing").
        { () -> CallContext in
            var context = CallContext(requestID: "r-6")
            context.traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
            return context
        }(),
    ]

    @Test func theSyntheticMarkIsReadBackAndAbsentWhenUnset() throws {
        for context in Self.contexts {
            let tree = try JSONValueEncoder().encode(context)
            #expect(CallContext(json: tree, logger: context.logger)?.synthetic == context.synthetic)
            #expect((tree["synthetic"] != nil) == (context.synthetic != nil))
        }
        #expect(CallContext(json: ["requestId": "r", "synthetic": "yes"], logger: Logger(label: "t")) == nil)
    }

    @Test func theCallersTraceparentIsReadBackAndAbsentWhenUnset() throws {
        for context in Self.contexts {
            let tree = try JSONValueEncoder().encode(context)
            #expect(CallContext(json: tree, logger: context.logger)?.traceparent == context.traceparent)
            #expect((tree["traceparent"] != nil) == (context.traceparent != nil))
        }
        // Not a string: the context is unreadable, and the call runs as one without a context.
        #expect(CallContext(json: ["requestId": "r", "traceparent": 7], logger: Logger(label: "t")) == nil)
    }

    static let inputs = [
        HTTPInput(),
        HTTPInput(
            body: ["b": 1, "a": [true, "é\n"]], path: ["repo": "oyd.location", "id": "7"], query: ["page": ["1", "2"], "z": [""]],
            headers: ["user-agent": "curl/8"], cursor: "next/1"),
        HTTPInput(body: "text", query: ["q": ["a&b"]]),
    ]

    /// What the frame was when it was written from a tree (sorted keys throughout): the tree of its `Codable` parts.
    static func treeFrame(id: RPCID, method: String, context: CallContext, input: HTTPInput) throws -> [UInt8] {
        let encoder = JSONValueEncoder()
        return JSONValue.object([
            "jsonrpc": "2.0", "id": try encoder.encode(id), "method": .string(method),
            "params": .object(["context": try encoder.encode(context), "input": try encoder.encode(input)]),
        ]).jsonBytes
    }

    @Test func framesAreWrittenByteForByteAsTheTreeWroteThem() throws {
        for context in Self.contexts {
            for input in Self.inputs {
                for id in [RPCID.number(7), .string("call-\"1\"")] {
                    let frame = try RPCClient.requestFrame(id: id, method: "devices.upload", context: context, input: input)
                    #expect(Array(buffer: frame) == (try Self.treeFrame(id: id, method: "devices.upload", context: context, input: input)))
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
        let inputTree = try #require(fields["input"])
        let read = try #require(HTTPInput(json: inputTree))
        #expect(read.body == (try JSONValue.parse(Array(text.utf8))))
        #expect(read.body == ["b": [1, .double(2.5), 1000, "é/"], "a": ["dup": 1], "n": nil])
        #expect(read.path == ["repo": "r"] && read.query == ["page": ["2"]])
        #expect(input.body == read.body, "the gateway reads the same value when it needs one")
    }
}

/// Answers are written member by member too: byte for byte what writing them as a tree gave, so that every caller reads
/// the same frames as before.
@Suite("Response frames")
struct ResponseFrameTests {
    static let ids: [RPCID?] = [.number(42), .string("call-\"7\""), nil]

    @Test func errorFramesAreWrittenAsTheTreeWroteThem() throws {
        let dispatcher = RPCDispatcher(methods: RPCMethods(), logger: .init(label: "test"), errorMapper: { _ in nil })
        let errors = [
            RPCError(.badRequest, reason: "missing_device_id", message: "Missing device_id parameter \"é\""),
            RPCError(.unavailable, reason: "database_unavailable", message: "down", retryAfter: 2),
            RPCError.validation(location: ["body", "activation_token"], message: "field required", type: "value_error.missing"),
        ]
        for error in errors {
            for id in Self.ids {
                let tree = JSONValue.object([
                    "jsonrpc": "2.0", "id": try JSONValueEncoder().encode(id), "error": try JSONValueEncoder().encode(error.object),
                ]).jsonBytes
                #expect(Array(buffer: dispatcher.encodeError(error, id: id)) == tree, "\(error)")
            }
        }
    }

    @Test func resultFramesAreWrittenAsTheTreeWroteThem() throws {
        let reply = RawHTTPReply(status: 201, headers: ["Content-Type": "text/csv", "Link": "<a>; rel=\"next\""], body: Data("a,b\n".utf8))
        let page = StreamPage(headers: ["Content-Type": "application/x-ndjson"], chunk: "{\"a\":1}\n", next: "cursor/2")
        let value: JSONValue = ["server_time": "2026-11-26T19:00:00", "size": 1, "nested": [nil, true, .double(0.5)]]
        for id in Self.ids {
            func tree(_ result: some Encodable) throws -> [UInt8] {
                JSONValue.object(["jsonrpc": "2.0", "id": try JSONValueEncoder().encode(id), "result": try JSONValueEncoder().encode(result)])
                    .jsonBytes
            }
            #expect(Array(buffer: try RPCMethods.encode(value, id: id)) == (try tree(value)))
            #expect(Array(buffer: try RPCMethods.encode(reply, id: id)) == (try tree(reply)))
            #expect(Array(buffer: try RPCMethods.encode(page, id: id)) == (try tree(page)))
            #expect(Array(buffer: try RPCMethods.encode(Empty(), id: id)) == (try tree(Empty())))
            #expect(Array(buffer: try RPCMethods.encode(Empty(), id: id)) == (try tree(JSONValue.object([:]))))
            let principal = Principal(kind: .device, id: "42", session: "s", scopes: ["a", "b/c"])
            #expect(Array(buffer: try RPCMethods.encode(principal, id: id)) == (try tree(principal)))
        }
    }

    /// Independent of our writer: what Foundation's `JSONEncoder` writes for the error reads as the same value.
    @Test func errorFramesReadAsTheirCodableForm() throws {
        let dispatcher = RPCDispatcher(methods: RPCMethods(), logger: .init(label: "test"), errorMapper: { _ in nil })
        let errors: [(RPCError, RPCID?)] = [
            (RPCError(.invalidParams, reason: "invalid_params", message: "device_id is required \"quoted\" é"), .number(7)),
            (RPCError(.unavailable, reason: "database_unavailable", message: "down", retryAfter: 2), .string("call-1")),
            (RPCError(.tooManyRequests, reason: "too_many_calls", message: "slow down"), nil),
        ]
        for (error, id) in errors {
            var withDetails = error
            withDetails.details = .object(["errors": .array([.string("a"), .int(1)])])
            for candidate in [error, withDetails] {
                let ours = try JSONValue.parse(Array(buffer: dispatcher.encodeError(candidate, id: id)))
                let theirs = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(RPCErrorResponse(id: id, error: candidate.object)))
                #expect(ours == theirs)
            }
        }
    }
}

/// An error response as `JSONEncoder` writes it: what the dispatcher's own writing must read as.
private struct RPCErrorResponse: Encodable, Sendable {
    var jsonrpc = "2.0"
    var id: RPCID?
    var error: RPCErrorObject

    enum CodingKeys: CodingKey { case jsonrpc, id, error }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jsonrpc, forKey: .jsonrpc)
        try container.encode(id, forKey: .id)
        try container.encode(error, forKey: .error)
    }
}
