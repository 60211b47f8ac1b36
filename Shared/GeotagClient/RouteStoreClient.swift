import AsyncHTTPClient
import CustodianGeotag
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// Signed requests to a geotag route store (docs/geotag.md): what the app does to store a route and what the
/// desktop tool does to fetch it, for `custodian route upload` and `custodian geotag` alike.
public struct RouteStoreClient: Sendable {
    public let server: String
    let key: String
    let secret: String
    let tls: TLSConfiguration
    /// The server URL's path, which the gateway sees in front of ours and so is part of what is signed.
    let basePath: String
    let root: String
    /// A client the caller keeps for many requests (a load generator); without one, each request has its own.
    let http: HTTPClient?
    /// Given the headers of each answer: the load generator reads the trace id in its `traceparent`.
    let onAnswer: (@Sendable (HTTPHeaders) -> Void)?

    public struct StoredRoute: Sendable, Equatable {
        public var routeID: String
        public var creationTime: Int64
    }

    public struct FetchedRoute: Sendable, Equatable {
        public var routeID: String
        public var creationTime: Int64
        /// The encrypted route, as the app stored it.
        public var blob: Data
    }

    /// `tls`: whose certificates to trust (the system's by default), for the client made per request when `http` is nil.
    public init(
        server: String, key: String, secret: String, tls: TLSConfiguration = .makeClientConfiguration(), http: HTTPClient? = nil,
        onAnswer: (@Sendable (HTTPHeaders) -> Void)? = nil
    ) throws(RouteStoreError) {
        guard let base = URL(string: server), ["http", "https"].contains(base.scheme ?? ""), base.host != nil, base.query == nil else {
            throw .invalidServer
        }
        self.server = server
        self.key = key
        self.secret = secret
        self.tls = tls
        self.http = http
        self.onAnswer = onAnswer
        root = server.hasSuffix("/") ? String(server.dropLast()) : server
        basePath = base.path.hasSuffix("/") ? String(base.path.dropLast()) : base.path
    }

    /// `POST /route?lookup_id=…`: the base64 text in the app's form.
    public func store(_ blob: Data, lookupID: String?) async throws(RouteStoreError) -> StoredRoute {
        let path = "/route" + (lookupID.map { "?lookup_id=\($0)" } ?? "")
        let answer = try await send(.POST, path, body: Data(blob.base64EncodedString().utf8))
        struct Answer: Decodable {
            var route_id: String
            var creation_time: Int64
        }
        guard let stored = try? JSONDecoder().decode(Answer.self, from: answer) else {
            throw .unexpectedAnswer("not a stored route: \(String(decoding: answer, as: UTF8.self))")
        }
        return StoredRoute(routeID: stored.route_id, creationTime: stored.creation_time)
    }

    /// `GET /route/{route_id}`. Route ids are URL-safe base64; anything else cannot be one.
    public func fetch(routeID: String) async throws(RouteStoreError) -> FetchedRoute {
        guard Self.isRouteID(routeID) else { throw .invalidRouteID }
        return try await fetch("/route/\(routeID)")
    }

    /// `DELETE /route/{route_id}`: only the consumer that stored the route may.
    public func delete(routeID: String) async throws(RouteStoreError) {
        guard Self.isRouteID(routeID) else { throw .invalidRouteID }
        _ = try await send(.DELETE, "/route/\(routeID)", body: Data())
    }

    static func isRouteID(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// `GET /route/lookup/{lookup_id}`, the lookup id derived from the QR code's nonce.
    public func fetch(lookupID: String) async throws(RouteStoreError) -> FetchedRoute {
        try await fetch("/route/lookup/\(lookupID)")
    }

    private func fetch(_ path: String) async throws(RouteStoreError) -> FetchedRoute {
        let answer = try await send(.GET, path, body: Data())
        struct Answer: Decodable {
            var route_id: String
            var creation_time: Int64
            var route: String
        }
        guard let fetched = try? JSONDecoder().decode(Answer.self, from: answer), let blob = Data(base64Encoded: fetched.route) else {
            throw .unexpectedAnswer("not a route: \(String(decoding: answer.prefix(200), as: UTF8.self))")
        }
        return FetchedRoute(routeID: fetched.route_id, creationTime: fetched.creation_time, blob: blob)
    }

    /// One signed request; the answer's body when the status is 2xx.
    ///
    /// The signature covers the method, target, body and the timestamp in whole seconds, and the server refuses
    /// a signature it has seen: the same request made again within the same second (running the tool twice in
    /// a row, a dry run and then the real one) is refused as a replay. That once, the request is signed again
    /// in the next second and sent again; it changes nothing on the server (a fetch, or an idempotent store).
    private func send(_ method: HTTPMethod, _ path: String, body: Data) async throws(RouteStoreError) -> Data {
        let first = try await sendOnce(method, path, body: body)
        guard first.status == 401, first.body.contains("\"replayed_signature\"") else { return try first.accepted() }
        let now = Date().timeIntervalSince1970
        try? await Task.sleep(for: .milliseconds(Int((now.rounded(.down) + 1 - now) * 1000) + 10))
        return try await sendOnce(method, path, body: body).accepted()
    }

    private struct Answer {
        var status: Int
        var body: String

        func accepted() throws(RouteStoreError) -> Data {
            guard (200..<300).contains(status) else { throw .refused(status: status, body: body) }
            return Data(body.utf8)
        }
    }

    private func sendOnce(_ method: HTTPMethod, _ path: String, body: Data) async throws(RouteStoreError) -> Answer {
        var request = HTTPClientRequest(url: root + path)
        request.method = method
        for (name, value) in RequestSignature.headers(key: key, secret: secret, method: method.rawValue, pathWithQuery: basePath + path, body: body) {
            request.headers.add(name: name, value: value)
        }
        if !body.isEmpty {
            request.headers.add(name: "Content-Type", value: "text/plain")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let client: HTTPClient
        if let http {
            client = http
        } else {
            // A server that refuses connections is retried until the connect timeout: keep the wait short.
            client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls, timeout: .init(connect: .seconds(5))))
        }
        let exchange: Result<(HTTPResponseStatus, ByteBuffer), any Error>
        do {
            let response = try await client.execute(request, timeout: .seconds(60))
            onAnswer?(response.headers)
            // A fetched route is at most 1 MiB, some 1.4 MB in base64 within its JSON.
            exchange = .success((response.status, try await response.body.collect(upTo: 4 * 1024 * 1024)))
        } catch {
            exchange = .failure(error)
        }
        if http == nil { try? await client.shutdown() }
        switch exchange {
        case .failure(let error):
            throw .unreachable(server: server, detail: "\(error)")
        case .success(let (status, answer)):
            return Answer(status: Int(status.code), body: String(buffer: answer))
        }
    }
}

public enum RouteStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidServer
    case invalidRouteID
    case unreachable(server: String, detail: String)
    case refused(status: Int, body: String)
    case unexpectedAnswer(String)

    public var description: String {
        switch self {
        case .invalidServer: "--server must be an http(s) URL, e.g. https://127.0.0.1:8443"
        case .invalidRouteID: "a route id is URL-safe base64 (letters, digits, - and _), as the app shows it"
        case .unreachable(let server, let detail): "cannot reach \(server): \(detail)"
        case .refused(let status, let body): "the server refused the route: \(status) \(body)"
        case .unexpectedAnswer(let problem): "the server's answer is \(problem)"
        }
    }
}
