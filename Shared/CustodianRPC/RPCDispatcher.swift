import CustodianJSON
import Foundation
import Logging
import NIOCore
import Tracing

/// Turns one request frame into one response frame (or none, for a notification).
struct RPCDispatcher: Sendable {
    let methods: RPCMethods
    let logger: Logger
    /// Lets a runtime translate errors it knows (a wrapped database error, say) into RPC errors.
    let errorMapper: @Sendable (any Error) -> RPCError?

    func handle(_ frame: ByteBuffer) async -> ByteBuffer? {
        // One parse of the whole frame serves the header, the context and the input.
        let parsed: JSONValue
        do {
            parsed = try frame.withUnsafeReadableBytes { bytes in try JSONValue.parse(bytes) }
        } catch {
            return encodeError(RPCError(.parseError, reason: "parse_error", message: "parse error: the frame is not valid JSON"), id: nil)
        }
        guard case .object(let fields) = parsed else {
            return encodeError(
                RPCError(.invalidRequest, reason: "invalid_request", message: "a request must be a JSON object (batches are not supported)"), id: nil)
        }
        let header = Self.header(fields)
        guard fields["jsonrpc"] == .string("2.0"), let method = header.method else {
            return encodeError(
                RPCError(.invalidRequest, reason: "invalid_request", message: "invalid request: jsonrpc must be \"2.0\" and method a string"),
                id: header.id)
        }
        let params = fields["params"]
        // A context that cannot be read counts as none (docs/rpc.md).
        let context = params?["context"].flatMap { CallContext(json: $0, logger: logger) } ?? CallContext(requestID: "-", logger: logger)
        return await respond(
            to: RPCMethods.Request(params: params, id: header.id), method: method, context: context,
            isNotification: header.isNotification)
    }

    /// What the server reads of a request before it knows the method: its id (`null` when absent or of another type),
    /// its method, and whether it is a notification (no `id` member at all).
    struct Header {
        var id: RPCID?
        var method: String?
        var isNotification: Bool
    }

    static func header(_ fields: [String: JSONValue]) -> Header {
        Header(id: fields["id"].flatMap(RPCID.init(json:)), method: fields["method"]?.stringValue, isNotification: fields["id"] == nil)
    }

    /// The header of a frame the server answers without running it (a refusal); nil when the frame is no JSON object.
    static func header(of frame: ByteBuffer) -> Header? {
        guard case .object(let fields)? = try? frame.withUnsafeReadableBytes({ bytes in try JSONValue.parse(bytes) }) else { return nil }
        return header(fields)
    }

    /// Runs the method in a span that continues the caller's (``CallContext/traceparent``), so that the method's own
    /// calls and statements are its children and its log lines carry the trace id.
    private func respond(to request: RPCMethods.Request, method: String, context: CallContext, isNotification: Bool) async -> ByteBuffer? {
        let registered = methods.handlers[method]
        let name = registered == nil ? "unknown method" : method
        return await Spans.run(name, kind: .server, context: TraceParent.context(traceparent: context.traceparent)) { span in
            if span.isRecording {
                span.attributes["rpc.system"] = "jsonrpc"
                span.attributes["rpc.method"] = name
            }
            return await respond(
                to: request, method: method, registered: registered, context: context, isNotification: isNotification, span: span)
        }
    }

    private func respond(
        to request: RPCMethods.Request, method: String, registered: RPCMethods.Method?, context: CallContext, isNotification: Bool,
        span: any Span
    ) async -> ByteBuffer? {
        let response: ByteBuffer
        do {
            guard let registered else {
                throw RPCError(.methodNotFound, reason: "method_not_found", message: "method not found: \(method)")
            }
            if let deadline = context.deadlineDate, deadline < Date() {
                throw RPCError(.deadlineExceeded, reason: "deadline_exceeded", message: "the caller's deadline passed before the call started")
            }
            // Before the input is read. The gateway refuses such callers first: a service meets one only through a
            // misconfigured route, another service, or a test.
            try registered.requires?.admit(context)
            if registered.work == .cpuHeavy {
                response = try await OffLoop.run { try await registered.handler(request, context) }
            } else {
                response = try await registered.handler(request, context)
            }
        } catch {
            let rpcError = rpcError(for: error, method: method, context: context)
            if span.isRecording {
                span.attributes["rpc.jsonrpc.error_code"] = rpcError.code.rawValue
                Spans.mark(span, failedWith: rpcError, isError: rpcError.code.httpStatus >= 500)
            }
            return isNotification ? nil : encodeError(rpcError, id: request.id)
        }
        return isNotification ? nil : response
    }

    private func rpcError(for error: any Error, method: String, context: CallContext) -> RPCError {
        if let rpcError = error as? RPCError { return rpcError }
        if let mapped = errorMapper(error) { return mapped }
        // Details stay in the log; the caller learns only that it was our fault.
        context.logger.error("RPC method failed", metadata: ["method": .string(method), "error": .string(String(reflecting: error))])
        return .internal()
    }

    /// Written member by member: an error is as common an answer as a result (every 4xx).
    func encodeError(_ error: RPCError, id: RPCID?) -> ByteBuffer {
        var frame: [UInt8] = []
        frame.reserveCapacity(192)
        var response = JSONObjectWriter(into: &frame)
        response.key("error", into: &frame)
        error.object.writeJSON(into: &frame)
        response.key("id", into: &frame)
        id.write(into: &frame)
        response.string("jsonrpc", "2.0", into: &frame)
        response.end(into: &frame)
        return ByteBuffer(bytes: frame)
    }
}
