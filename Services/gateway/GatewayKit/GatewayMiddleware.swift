import CustodianRPC
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOHTTP1
import Tracing

/// Wraps every request in its span (continuing the client's `traceparent` when it is valid W3C), assigns the request
/// id (the client's `X-Request-Id` when it is sane, else the trace id), renders any error in the API style of the path,
/// answers with the id and the span's `traceparent`, records metrics and logs one line per request.
struct GatewayMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext

    let metrics: GatewayMetrics
    let unmatchedPaths: UnmatchedPathStyles

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let parent = TraceParent.context(traceparent: request.headers[.traceparent], tracestate: request.headers[.tracestate])
        return await Spans.run(request.method.rawValue, kind: .server, context: parent) { span in
            await handle(request, context: context, span: span, next: next)
        }
    }

    private func handle(
        _ request: Request, context: Context, span: any Span, next: (Request, Context) async throws -> Response
    ) async -> Response {
        let started = ContinuousClock.now
        var context = context
        let traceparent = TraceParent.of(span.context)
        context.requestID = Self.requestID(from: request, traceparent: traceparent)
        context.logger[metadataKey: "request_id"] = .string(context.requestID)
        context.span = span

        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as GatewayError {
            response = error.makeResponse()
        } catch let error as HTTPError {
            // Routing and body errors Hummingbird raises itself (no such route, body too large).
            let style = unmatchedPaths.style(for: request.uri.path)
            response = GatewayError(
                status: error.status, reason: Self.reason(for: error.status), message: Self.message(for: error, style: style), style: style
            ).makeResponse()
        } catch is HTTPParserError {
            // A body that breaks HTTP/1.1's framing (a chunk size that is not hex, say): the client's fault, and the
            // connection cannot be trusted with another request.
            let style = unmatchedPaths.style(for: request.uri.path)
            response = GatewayError(status: .badRequest, reason: "malformed_http", message: "The request is not valid HTTP/1.1", style: style)
                .makeResponse()
            response.headers[.connection] = "close"
        } catch let error as any HTTPResponseError {
            let style = unmatchedPaths.style(for: request.uri.path)
            response = GatewayError(status: error.status, reason: Self.reason(for: error.status), message: error.status.reasonPhrase, style: style)
                .makeResponse()
        } catch {
            context.logger.error("request failed", metadata: ["error": .string(String(reflecting: error))])
            response = GatewayError.internal(style: unmatchedPaths.style(for: request.uri.path)).makeResponse()
        }
        response.headers[.requestID] = context.requestID
        if let traceparent { response.headers[.traceparent] = traceparent }

        let duration = ContinuousClock.now - started
        let route = context.endpointPath ?? "unmatched"
        if span.isRecording { Self.describe(span, request: request, route: context.endpointPath, status: response.status.code) }
        metrics.recordRequest(route: route, method: request.method.rawValue, status: response.status.code, duration: duration)
        var metadata: Logger.Metadata = [
            "method": .string(request.method.rawValue), "route": .string(route),
            "status": .stringConvertible(response.status.code),
            "ms": .stringConvertible((duration.seconds * 1000).rounded()),
        ]
        if let admin = context.admin.text { metadata["admin"] = .string(admin) }
        context.logger.info("request", metadata: metadata)
        return response
    }

    /// The client's `X-Request-Id` when it is sane, else the trace id (so that a complaint quoting either leads to the
    /// trace), else a random one (a process without a tracer: tests).
    static func requestID(from request: Request, traceparent: String? = nil) -> String {
        if let given = request.headers[.requestID], (1...128).contains(given.utf8.count),
            given.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.:".contains($0)) })
        {
            return given
        }
        return traceparent.flatMap(TraceParent.traceID(of:)) ?? RequestID.random()
    }

    /// OpenTelemetry's HTTP server attributes: the route's template, never the path (which holds ids) or the query,
    /// the client's address or its headers.
    static func describe(_ span: any Span, request: Request, route: String?, status: Int) {
        span.operationName = route.map { "\(request.method.rawValue) \($0)" } ?? request.method.rawValue
        span.attributes["http.request.method"] = request.method.rawValue
        if let route { span.attributes["http.route"] = route }
        span.attributes["http.response.status_code"] = status
        if status >= 500 {
            span.attributes["error.type"] = String(status)
            span.setStatus(SpanStatus(code: .error))
        }
    }

    static func reason(for status: HTTPResponse.Status) -> String {
        status.reasonPhrase.lowercased().replacingOccurrences(of: " ", with: "_")
    }

    static func message(for error: HTTPError, style: APIStyle) -> String {
        // FastAPI's own wording for the Twomes API, plain HTTP phrases elsewhere.
        if let body = error.body, !body.isEmpty { return body }
        return error.status.reasonPhrase
    }
}

extension HTTPField.Name {
    static let requestID = HTTPField.Name("X-Request-Id")!
    static let traceparent = HTTPField.Name("traceparent")!
    static let tracestate = HTTPField.Name("tracestate")!
}
