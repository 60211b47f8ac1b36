import Foundation
import Logging
import NIOCore
import NIOFoundationCompat

/// Turns one request frame into one response frame (or none, for a notification).
struct RPCDispatcher: Sendable {
    let methods: RPCMethods
    let logger: Logger
    /// Lets a runtime translate errors it knows (a wrapped database error, say) into RPC errors.
    let errorMapper: @Sendable (any Error) -> RPCError?

    func handle(_ frame: ByteBuffer) async -> ByteBuffer? {
        // One parse of the whole frame serves the header, the context and (for most methods) the input.
        let parsed = try? frame.withUnsafeReadableBytes { bytes in try JSONValue.parse(bytes) }
        guard case .object(let fields)? = parsed else { return await handleUnparsed(frame) }
        let id = fields["id"].flatMap(RPCID.init(json:))
        let isNotification = fields["id"] == nil
        guard fields["jsonrpc"] == .string("2.0"), case .string(let method)? = fields["method"] else {
            return encodeError(
                RPCError(.invalidRequest, reason: "invalid_request", message: "invalid request: jsonrpc must be \"2.0\" and method a string"),
                id: id)
        }
        let contextJSON = fields["params"]?["context"]
        let context: CallContext
        if contextJSON == nil || contextJSON == .null {
            context = CallContext(requestID: "-", logger: logger)
        } else if let fast = CallContext(json: contextJSON, logger: logger) {
            context = fast
        } else {
            context = withLogger(Self.decodeContext(frame))
        }
        let request = RPCMethods.Request(frame: frame, fields: fields, id: id)
        return await respond(to: request, method: method, context: context, isNotification: isNotification)
    }

    /// A frame the fast parser did not take as an object: read the way `JSONDecoder` reads it, so that its errors
    /// (not JSON, a batch, a missing method) are told as before.
    private func handleUnparsed(_ frame: ByteBuffer) async -> ByteBuffer? {
        let header: RPCRequestHeader
        do {
            header = try JSONDecoder().decode(RPCRequestHeader.self, from: frame)
        } catch {
            // Not JSON, or JSON that is not an object (a batch array, say).
            let isJSON = (try? JSONSerialization.jsonObject(with: Data(buffer: frame), options: [.fragmentsAllowed])) != nil
            return encodeError(
                isJSON
                    ? RPCError(.invalidRequest, reason: "invalid_request", message: "a request must be a JSON object (batches are not supported)")
                    : RPCError(.parseError, reason: "parse_error", message: "parse error: the frame is not valid JSON"),
                id: nil)
        }
        guard header.jsonrpc == "2.0", let method = header.method else {
            return encodeError(
                RPCError(.invalidRequest, reason: "invalid_request", message: "invalid request: jsonrpc must be \"2.0\" and method a string"),
                id: header.id)
        }
        let context = withLogger(Self.decodeContext(frame))
        return await respond(to: RPCMethods.Request(frame: frame, fields: nil, id: header.id), method: method, context: context,
                             isNotification: header.isNotification)
    }

    private func respond(to request: RPCMethods.Request, method: String, context: CallContext, isNotification: Bool) async -> ByteBuffer? {
        let response: ByteBuffer
        do {
            guard let registered = methods.handlers[method] else {
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
            return isNotification ? nil : encodeError(rpcError, id: request.id)
        }
        return isNotification ? nil : response
    }

    /// The context with this service's logger, which logs the request's id.
    private func withLogger(_ context: CallContext) -> CallContext {
        var context = context
        context.use(logger)
        return context
    }

    private static func decodeContext(_ frame: ByteBuffer) -> CallContext {
        (try? JSONDecoder().decode(ContextProbe.self, from: frame))?.params?.context ?? CallContext(requestID: "-")
    }

    private func rpcError(for error: any Error, method: String, context: CallContext) -> RPCError {
        if let rpcError = error as? RPCError { return rpcError }
        if let mapped = errorMapper(error) { return mapped }
        // Details stay in the log; the caller learns only that it was our fault.
        context.logger.error("RPC method failed", metadata: ["method": .string(method), "error": .string(String(reflecting: error))])
        return .internal()
    }

    /// Written from a tree, not through `JSONEncoder`: an error is as common an answer as a result (every 4xx).
    func encodeError(_ error: RPCError, id: RPCID?) -> ByteBuffer {
        var frame: [UInt8] = []
        frame.reserveCapacity(192)
        var response = JSONObjectWriter(into: &frame)
        response.key("error", into: &frame)
        error.object.writeJSON(into: &frame)
        response.key("id", into: &frame)
        (id?.json ?? .null).write(into: &frame)
        response.string("jsonrpc", "2.0", into: &frame)
        response.end(into: &frame)
        return ByteBuffer(bytes: frame)
    }
}

private struct ContextProbe: Decodable {
    struct Params: Decodable { var context: CallContext? }
    var params: Params?
}
