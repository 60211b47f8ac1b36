import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation
import HTTPTypes
import Hummingbird

/// The admin API's routes, called for the console's researcher: the same methods, checks and errors as
/// `/admin/v1`, with the session's admin as the caller instead of a bearer token.
struct ConsoleAdmin: Sendable {
    /// The routes' forwarders by `METHOD path`.
    let forwarders: [String: RouteForwarder]
    let gate: ConsoleSessionGate

    /// A route of the table. The console names only routes of `RouteTable.all` (ConsoleRouteUseTests checks each);
    /// a gateway built with other routes (tests) answers the page with a 500 rather than stopping.
    func forwarder(_ method: HTTPRequest.Method, _ path: String) throws -> RouteForwarder {
        guard let forwarder = forwarders["\(method) \(path)"] else {
            throw ConsoleFailure(status: .internalServerError, message: "This page needs \(method) \(path), which this gateway does not route.")
        }
        return forwarder
    }

    /// The route's JSON result.
    func json(_ method: HTTPRequest.Method, _ path: String, _ input: HTTPInput = HTTPInput(), for visit: ConsoleVisit) async throws -> JSONValue {
        try await call(method, path, input, for: visit, as: JSONValue.self)
    }

    /// The route's reply as the service made it (an image, a page).
    func raw(_ method: HTTPRequest.Method, _ path: String, _ input: HTTPInput = HTTPInput(), for visit: ConsoleVisit) async throws -> RawHTTPReply {
        try await call(method, path, input, for: visit, as: RawHTTPReply.self)
    }

    /// A streamed route's first page (the audit log's JSON page is all of it).
    func firstPage(_ method: HTTPRequest.Method, _ path: String, _ input: HTTPInput = HTTPInput(), for visit: ConsoleVisit) async throws -> StreamPage
    {
        try await call(method, path, input, for: visit, as: StreamPage.self)
    }

    /// The route's response as the admin API sends it (a download streams as it is made).
    func response(_ method: HTTPRequest.Method, _ path: String, _ input: HTTPInput, for visit: ConsoleVisit) async throws -> Response {
        let forwarder = try forwarder(method, path)
        do {
            return try await forwarder.answer(
                input, callContext: gate.callContext(visit.context, principal: visit.principal), logger: visit.context.logger)
        } catch let error as GatewayError {
            throw ConsoleFailure(error)
        }
    }

    /// An image reply as a `data:` URL, which the console's Content-Security-Policy lets pages show.
    static func dataURL(_ reply: RawHTTPReply) -> String {
        let type = reply.headers.first { $0.key.lowercased() == "content-type" }?.value ?? "image/png"
        return "data:\(type);base64,\(reply.body)"
    }

    private func call<Result: Codable & Sendable>(
        _ method: HTTPRequest.Method, _ path: String, _ input: HTTPInput, for visit: ConsoleVisit, as type: Result.Type
    ) async throws -> Result {
        let forwarder = try forwarder(method, path)
        do {
            return try await forwarder.call(input, callContext: gate.callContext(visit.context, principal: visit.principal), as: type)
        } catch let error as GatewayError {
            throw ConsoleFailure(error)
        }
    }
}
