import CustodianJSON
import CustodianRPC
import Foundation
import HTTPTypes
import Hummingbird

/// An error response, rendered in the style of the API it belongs to.
public struct GatewayError: Error, HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    public var reason: String
    public var message: String
    public var style: APIStyle
    public var details: JSONValue?
    public var headers: HTTPFields = [:]

    public init(status: HTTPResponse.Status, reason: String, message: String, style: APIStyle, details: JSONValue? = nil) {
        self.status = status
        self.reason = reason
        self.message = message
        self.style = style
        self.details = details
    }

    /// A service's error, as the HTTP status its code stands for.
    init(_ error: RPCError, style: APIStyle) {
        let status = HTTPResponse.Status(code: error.code.httpStatus)
        // Protocol errors mean the gateway and the service disagree: that is our fault, not the client's.
        let isProtocolFault = error.code.rawValue < 0 && error.code != .invalidParams
        self.init(
            status: isProtocolFault ? .internalServerError : status,
            reason: isProtocolFault ? "internal_error" : error.reason,
            message: isProtocolFault ? "internal error" : error.message,
            style: style, details: error.details)
        // Refusals that end by themselves say when to come back (RFC 9110, 10.2.3).
        if let seconds = error.retryAfter, seconds > 0 {
            headers[.retryAfter] = String(seconds)
        } else if error.code == .unavailable || error.code == .tooManyRequests {
            headers[.retryAfter] = "1"
        }
    }

    static func `internal`(style: APIStyle) -> GatewayError {
        GatewayError(status: .internalServerError, reason: "internal_error", message: "Internal server error", style: style)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        makeResponse()
    }

    func makeResponse() -> Response {
        let body = style.errorBody(status: status, reason: reason, message: message, details: details)
        var response = JSONResponse.make(body, status: status)
        response.headers.append(contentsOf: headers)
        return response
    }
}

enum JSONResponse {
    static func make(_ body: JSONValue, status: HTTPResponse.Status) -> Response {
        var bytes = body.jsonBytes
        // A newline after the JSON, so that a terminal's prompt after `curl` starts on a line of its own.
        bytes.append(UInt8(ascii: "\n"))
        // Room for the headers the gateway adds to every response (`X-Request-Id`, an error's `Retry-After`) and
        // Hummingbird's `Content-Length`, so that adding them does not grow the list again.
        var headers = HTTPFields()
        headers.reserveCapacity(4)
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
