import CustodianRPC
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOHTTP1

/// Wraps every request: assigns the request id (the client's `X-Request-Id` when it is sane), renders any
/// error in the API style of the path, echoes the id, records metrics and logs one line per request.
struct GatewayMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext

    let metrics: GatewayMetrics
    let unmatchedPaths: UnmatchedPathStyles

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        var context = context
        context.requestID = Self.requestID(from: request)
        context.logger[metadataKey: "request_id"] = .string(context.requestID)

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

        let duration = ContinuousClock.now - started
        let route = context.endpointPath ?? "unmatched"
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

    static func requestID(from request: Request) -> String {
        if let given = request.headers[.requestID], (1...128).contains(given.utf8.count),
            given.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.:".contains($0)) })
        {
            return given
        }
        return RequestID.random()
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
}
