import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation
import HTTPTypes
import Hummingbird

/// The admin API's methods, called for the console's researcher by their descriptors (``ConsoleMethods``). Each is found
/// in the route table by its RPC name and called through its route's forwarder, so that the call gets the route's scope
/// check, audit entries and errors, as `/admin/v1` would, with the session's admin as the caller instead of a bearer token.
struct ConsoleAdmin: Sendable {
    /// The routes' forwarders by the RPC method each calls.
    let forwarders: [String: RouteForwarder]
    let gate: ConsoleSessionGate

    /// From the gateway's forwarders (by `METHOD path`); a method with two routes is called through the first by path.
    init(forwarders: [String: RouteForwarder], gate: ConsoleSessionGate) {
        self.forwarders = Dictionary(forwarders.values.map { ($0.route.rpcMethod, $0) }) { first, second in
            first.route.path <= second.route.path ? first : second
        }
        self.gate = gate
    }

    /// The route of a method. Every method of ``ConsoleMethods`` has one in `RouteTable.all` (ConsolePartsTests); a
    /// gateway built with other routes (tests) answers the page with a 500 rather than stopping.
    func forwarder(_ method: some RouteTarget) throws -> RouteForwarder {
        guard let forwarder = forwarders[method.name] else {
            throw ConsoleFailure(status: .internalServerError, message: "This page needs \(method.name), which this gateway does not route.")
        }
        return forwarder
    }

    /// A method's JSON result, read as its type. The route's audit entries see the JSON as `/admin/v1` does (its rows,
    /// what a write made).
    func call<Input, Result: RoutedJSON>(_ method: RoutedMethod<Input, Result>, _ input: Input, for visit: ConsoleVisit) async throws -> Result {
        try await call(method, forwarding: try Self.request(input), for: visit)
    }

    /// A method's JSON result for a request as the researcher gave it (a cohort's CSV file): the service reads it and says
    /// what is wrong with it, as it would to `/admin/v1`.
    func call<Input, Result: RoutedJSON>(
        _ method: RoutedMethod<Input, Result>, forwarding request: HTTPInput, for visit: ConsoleVisit
    ) async throws -> Result {
        let json = try await call(method, request, for: visit, as: JSONValue.self)
        do {
            return try JSONValueDecoder().decode(Result.self, from: json)
        } catch {
            visit.context.logger.warning("console: an answer is not its method's type", metadata: ["method": .string(method.name)])
            throw ConsoleFailure(status: .badGateway, message: "The \(method.service) service's answer could not be read.")
        }
    }

    /// A method's reply as the service made it (an image).
    func raw<Input>(_ method: RoutedMethod<Input, RawHTTPReply>, _ input: Input, for visit: ConsoleVisit) async throws -> RawHTTPReply {
        try await call(method, try Self.request(input), for: visit, as: RawHTTPReply.self)
    }

    /// A streamed method's first page (the audit log's JSON page is all of it), for a query as the researcher typed it:
    /// the service checks it and says what is wrong with it.
    func firstPage<Input>(
        _ method: RoutedMethod<Input, StreamPage>, forwarding input: HTTPInput, for visit: ConsoleVisit
    ) async throws
        -> StreamPage
    {
        try await call(method, input, for: visit, as: StreamPage.self)
    }

    /// The route's response as the admin API sends it (a download streams as it is made, a label sheet is the page the
    /// service made), for a query as the researcher typed it.
    func response<Input, Result>(
        _ method: RoutedMethod<Input, Result>, forwarding input: HTTPInput, for visit: ConsoleVisit
    ) async throws
        -> Response
    {
        let forwarder = try forwarder(method)
        do {
            return try await forwarder.answer(
                input, callContext: gate.callContext(visit.context, principal: visit.principal), logger: visit.context.logger)
        } catch let error as GatewayError {
            throw ConsoleFailure(error)
        }
    }

    /// The route's response to a typed input (a label sheet: the page the service made).
    func response<Input, Result>(_ method: RoutedMethod<Input, Result>, _ input: Input, for visit: ConsoleVisit) async throws -> Response {
        try await response(method, forwarding: try Self.request(input), for: visit)
    }

    /// An image reply as a `data:` URL, which the console's Content-Security-Policy lets pages show.
    static func dataURL(_ reply: RawHTTPReply) -> String {
        let type = reply.headers.first { $0.key.lowercased() == "content-type" }?.value ?? "image/png"
        return "data:\(type);base64,\(reply.body)"
    }

    /// A typed input as the request it reads from (its `encode(to:)`), as the route's forwarder takes it.
    static func request(_ input: some Encodable) throws -> HTTPInput {
        try JSONValueDecoder().decode(HTTPInput.self, from: JSONValueEncoder().encode(input))
    }

    private func call<Result: Codable & Sendable>(
        _ method: some RouteTarget, _ input: HTTPInput, for visit: ConsoleVisit, as type: Result.Type
    ) async throws -> Result {
        let forwarder = try forwarder(method)
        do {
            return try await forwarder.call(input, callContext: gate.callContext(visit.context, principal: visit.principal), as: type)
        } catch let error as GatewayError {
            throw ConsoleFailure(error)
        }
    }
}
