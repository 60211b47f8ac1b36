import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Tracing

/// Turns an HTTP request on a route into a call of the route's service method, and its result or error
/// into a response in the route's API style.
struct RouteForwarder: Sendable {
    let route: Route
    let rpc: RPCClient
    let authenticator: Authenticator
    let maximumBodySize: Int
    let serviceTimeout: Duration
    let sessionKeys: SessionKeyCache
    let rateLimits: RouteRateLimits
    let audit: AuditTrail

    /// Deeper JSON than this is refused before any service sees it.
    static let maximumJSONDepth = 32

    /// Rate limits first, before the credential or the body is looked at; a 401 on the way counts as a failed
    /// authentication of the client's address.
    func respond(to request: Request, context: GatewayRequestContext) async throws -> Response {
        let client = ClientAddress.of(peer: context.remoteAddress, headers: request.headers, trustedProxies: rateLimits.trustedProxies)
        do {
            try rateLimits.admit(route, request: request, client: client)
        } catch {
            context.span?.addEvent("rate_limited")
            throw error
        }
        do {
            if route.endToEnd { return try await respondEncrypted(to: request, context: context) }
            return try await respondInTheClear(to: request, context: context)
        } catch let error as GatewayError where error.status == .unauthorized {
            rateLimits.recordAuthenticationFailure(route, client: client)
            throw error
        }
    }

    private func respondInTheClear(to request: Request, context: GatewayRequestContext) async throws -> Response {
        var callContext = callContext(for: context)
        // A signature covers the body, so a signed route reads it first; every other scheme is checked before
        // the body is read, so that a stranger's oversize body gets a 401, not a 413 (docs/operations.md).
        let rawBody: ByteBuffer
        if route.auth.coversBody {
            rawBody = try await collectBody(of: request)
            try await authenticator.authenticate(route, request: request, body: rawBody, context: &callContext)
        } else {
            try await authenticator.authenticate(route, request: request, body: nil, context: &callContext)
            rawBody = try await collectBody(of: request)
        }
        context.admin.record(callContext.principal)
        // Reading and writing a large body's JSON takes milliseconds: not on the connection's event loop.
        if rawBody.readableBytes >= OffLoop.largeBodySize {
            return try await OffLoop.run { [callContext] in try await forward(rawBody, of: request, context: context, callContext: callContext) }
        }
        return try await forward(rawBody, of: request, context: context, callContext: callContext)
    }

    private func forward(
        _ rawBody: ByteBuffer, of request: Request, context: GatewayRequestContext, callContext: CallContext
    ) async throws -> Response {
        let path = pathParameters(context), query = queryParameters(request), headers = forwardedHeaders(request)
        let input: HTTPInput =
            if let value = try bodyOtherThanJSON(rawBody, of: request) {
                HTTPInput(body: value, path: path, query: query, headers: headers)
            } else {
                HTTPInput(checkedBody: try checkedJSON(rawBody), path: path, query: query, headers: headers)
            }
        return try await answer(input, callContext: callContext, logger: context.logger)
    }

    /// A JSON body, checked and passed on as it came.
    private func checkedJSON(_ buffer: ByteBuffer) throws -> CheckedJSON {
        do {
            return try CheckedJSON(buffer, maximumDepth: Self.maximumJSONDepth)
        } catch {
            throw Self.malformedJSON(error, style: route.style)
        }
    }

    /// Form bodies only where the API takes them (OpenSense's client, OAuth token requests); elsewhere the
    /// body is JSON whatever the client labelled it, as the Twomes backend does.
    private func isForm(_ request: Request) -> Bool {
        route.acceptsFormBodies && request.headers[.contentType].map(Self.namesFormEncoding) == true
    }

    /// A `Content-Type` of `application/x-www-form-urlencoded`, in any case, with or without parameters; read without
    /// making a lower-cased copy of the value on every request.
    static func namesFormEncoding(_ contentType: String) -> Bool {
        var given = contentType.utf8.makeIterator()
        for expected in "application/x-www-form-urlencoded".utf8 {
            guard let byte = given.next() else { return false }
            let lowered = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
            guard lowered == expected else { return false }
        }
        return true
    }

    /// The route's answer to an input, for a caller the context names: one authenticated from the request, or
    /// the console's logged-in researcher (whose pages are made of the admin routes' answers).
    func answer(_ input: HTTPInput, callContext: CallContext, logger: Logger) async throws -> Response {
        switch route.rendering {
        case .json:
            let result = try await call(input, callContext: callContext, as: JSONValue.self)
            // 204 has no body by definition (RFC 9110, 15.3.5), whatever the method returned.
            if route.successStatus == .noContent { return Response(status: .noContent) }
            return JSONResponse.make(route.style.successBody(result, status: route.successStatus), status: route.successStatus)
        case .raw:
            return try Self.response(from: try await call(input, callContext: callContext, as: RawHTTPReply.self), style: route.style)
        case .stream:
            let input = try admitted(input, principal: callContext.principal)
            let begun = try await audit.begin(route, input: input, context: callContext)
            do {
                // The first page comes before the status line, so that a bad request still gets its 4xx.
                let first = try await rpc.call(
                    route.service, route.rpcMethod, input: input, context: callContext, as: StreamPage.self, retry: route.retry)
                return streamedResponse(first: first, input: input, context: callContext, audited: begun)
            } catch let error as RPCError {
                let refusal = serviceError(error, logger: logger)
                await audit.refused(begun, style: route.style, status: refusal.status, context: callContext)
                throw refusal
            }
        }
    }

    /// The route's method called with an input, for a caller the context names: the input admitted, the caller's scope
    /// checked, and the call recorded in the audit log before and after (an admin call that cannot be recorded is not made).
    func call<Result: Codable & Sendable>(_ input: HTTPInput, callContext: CallContext, as type: Result.Type) async throws -> Result {
        let input = try admitted(input, principal: callContext.principal)
        let begun = try await audit.begin(route, input: input, context: callContext)
        let result: Result
        do {
            result = try await rpc.call(route.service, route.rpcMethod, input: input, context: callContext, as: Result.self, retry: route.retry)
        } catch let error as RPCError {
            let refusal = serviceError(error, logger: callContext.logger)
            await audit.refused(begun, style: route.style, status: refusal.status, context: callContext)
            throw refusal
        }
        // Reads say how much they returned; a write names what it made.
        let counts = route.method == .get ? AuditTrail.Counts(result) : AuditTrail.Counts()
        try await audit.end(
            begun, style: route.style, status: route.successStatus, counts: counts, created: result as? JSONValue, context: callContext)
        return result
    }

    /// The input as the service gets it, once the rules every input obeys hold, the caller's scope allows the route,
    /// and the account it names has its turn.
    func admitted(_ input: HTTPInput, principal: Principal?) throws -> HTTPInput {
        if case .admin(let needed) = route.auth {
            let scope = AdminScope(of: principal)
            guard let scope, scope.allows(needed) else { throw route.style.insufficientScope(needed: needed, has: scope) }
        }
        if input.containsNUL { throw route.style.nulCharacter() }
        try rateLimits.admitAccount(route, input: input, principal: principal)
        return input
    }

    /// The context of the route's calls: the request's id, and a deadline after which nobody waits.
    func callContext(for context: GatewayRequestContext) -> CallContext {
        CallContext(requestID: context.requestID, deadline: Date().addingTimeInterval(serviceTimeout.seconds), logger: context.logger)
    }

    /// The route service's error as the client gets it; failures on our side are logged.
    func serviceError(_ error: RPCError, logger: Logger) -> GatewayError {
        if error.code.httpStatus >= 500 {
            logger.warning(
                "service call failed",
                metadata: ["service": .string(route.service), "method": .string(route.rpcMethod), "error": .string(error.description)])
        }
        return GatewayError(error, style: route.style)
    }

    /// Writes the pages as they come; a failure after the first page can only cut the body short, which
    /// the client notices as a truncated chunked response.
    /// The audit log's `end` entry of an audited export is written after the last page and before the body's end: when it
    /// cannot be written, the body is cut short too.
    private func streamedResponse(first: StreamPage, input: HTTPInput, context: CallContext, audited: AuditRecord?) -> Response {
        var headers = HTTPFields()
        for (name, value) in first.headers ?? [:] {
            if let fieldName = HTTPField.Name(name) { headers[fieldName] = value }
        }
        let route = self.route
        let rpc = self.rpc
        let timeout = serviceTimeout
        let audit = self.audit
        @Sendable func writePages(to writer: inout any ResponseBodyWriter) async throws {
            var page = first
            var pageInput = input
            var counter = AuditTrail.StreamCounter(headers: first.headers)
            while true {
                counter.add(page.chunk)
                if !page.chunk.isEmpty { try await writer.write(ByteBuffer(string: page.chunk)) }
                guard let next = page.next else { break }
                pageInput.cursor = next
                var pageContext = context
                pageContext.deadline = Int64((Date().addingTimeInterval(timeout.seconds).timeIntervalSince1970 * 1000).rounded())
                page = try await rpc.call(
                    route.service, route.rpcMethod, input: pageInput, context: pageContext, as: StreamPage.self, retry: route.retry)
            }
            try await audit.end(audited, style: route.style, status: route.successStatus, counts: counter.counts, context: context)
            try await writer.finish(nil)
        }
        // The body is written after the request's span has ended, by the server's task: its page calls join the trace.
        let trace = InstrumentationContext.current
        return Response(
            status: route.successStatus, headers: headers,
            body: ResponseBody { writer in
                try await InstrumentationContext.$current.withValue(trace) { try await writePages(to: &writer) }
            })
    }

    static func response(from reply: RawHTTPReply, style: APIStyle) throws -> Response {
        guard let body = Data(base64Encoded: reply.body), (100..<600).contains(reply.status) else {
            throw GatewayError.internal(style: style)
        }
        var headers = HTTPFields()
        for (name, value) in reply.headers {
            if let fieldName = HTTPField.Name(name) { headers[fieldName] = value }
        }
        return Response(status: HTTPResponse.Status(code: reply.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The whole body, within the route's limit (or the gateway's).
    func collectBody(of request: Request) async throws -> ByteBuffer {
        let limit = route.maximumBodySize ?? maximumBodySize
        do {
            return try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw GatewayError(
                status: .contentTooLarge, reason: "body_too_large",
                message: "The request body exceeds \(limit) bytes", style: route.style)
        }
    }

    /// The body as the service gets it when it is not JSON: `null` when there is none, else per the route's body format
    /// (text, or a form where the API takes forms); nil for a JSON body.
    private func bodyOtherThanJSON(_ buffer: ByteBuffer, of request: Request) throws -> JSONValue? {
        guard buffer.readableBytes > 0 else { return .null }
        if route.bodyFormat == .text {
            guard let text = String(validating: buffer.readableBytesView, as: UTF8.self) else {
                throw route.style.malformedBody("The request body is not UTF-8 text")
            }
            return .string(text)
        }
        if isForm(request) {
            guard let fields = Self.formFields(Data(buffer.readableBytesView)) else {
                throw route.style.malformedBody("The form body is not valid URL encoding")
            }
            return fields
        }
        return nil
    }

    /// A JSON body, within the depth limit.
    static func json(_ data: Data, style: APIStyle) throws -> JSONValue {
        do {
            return try JSONValue.parse(data, maximumDepth: maximumJSONDepth)
        } catch {
            throw malformedJSON(error, style: style)
        }
    }

    static func malformedJSON(_ error: JSONValue.ParseError, style: APIStyle) -> GatewayError {
        style.malformedBody(
            error.reason == .tooDeep
                ? "The request body nests deeper than \(maximumJSONDepth) levels" : "The request body is not valid JSON")
    }

    /// `a=1&b=x+y` as `{"a":"1","b":"x y"}` (a repeated name's last value); nil when the form is not valid.
    static func formFields(_ data: Data) -> JSONValue? {
        URLEncodedForm.fields(data).map { fields in .object(fields.compactMapValues { $0.last.map(JSONValue.string) }) }
    }

    func pathParameters(_ context: GatewayRequestContext) -> [String: String] {
        var parameters: [String: String] = [:]
        for (name, value) in context.parameters {
            parameters[String(name)] = String(value).removingPercentEncoding ?? String(value)
        }
        return parameters
    }

    /// The route's forwarded headers by lowercase name; a repeated header's values joined as HTTP allows.
    func forwardedHeaders(_ request: Request) -> [String: String] {
        var headers: [String: String] = [:]
        for name in route.forwardedHeaders {
            let values = request.headers[values: name]
            if !values.isEmpty { headers[name.canonicalName] = values.joined(separator: ", ") }
        }
        return headers
    }

    /// The query decoded as HTML forms, curl's `-G --data-urlencode` and the original backends (FastAPI, Rails)
    /// write it: `+` is a space, `%2B` a plus.
    func queryParameters(_ request: Request) -> [String: [String]] {
        request.uri.query.map(URLEncodedForm.query) ?? [:]
    }
}
