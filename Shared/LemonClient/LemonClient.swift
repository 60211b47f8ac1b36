import AsyncHTTPClient
import CustodianLemon
import Foundation
import NIOCore
import NIOHTTP1

/// The tracing app's side of the API over HTTP: handshake, then end-to-end encrypted calls. The command line
/// and the integration tests use it; it does what a real app must do, nothing more.
public struct LemonClient: Sendable {
    public let baseURL: String
    public let http: HTTPClient
    public let serverKey: ServerPublicKey
    /// Sent with each handshake besides the app's own: the load generator's `X-Custodian-Synthetic` (a real app sends none).
    public let handshakeHeaders: [(String, String)]
    /// Given the headers of each encrypted call's answer: the load generator reads the trace id in its `traceparent`.
    public let onAnswer: (@Sendable (HTTPHeaders) -> Void)?

    public init(
        baseURL: String, http: HTTPClient, serverKey: ServerPublicKey, handshakeHeaders: [(String, String)] = [],
        onAnswer: (@Sendable (HTTPHeaders) -> Void)? = nil
    ) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.http = http
        self.serverKey = serverKey
        self.handshakeHeaders = handshakeHeaders
        self.onAnswer = onAnswer
    }

    /// The keys a server publishes at `GET /api/v1/keys`, current first. An app ships them pinned; fetching
    /// them is for tools and tests that trust the connection instead.
    public static func publishedKeys(baseURL: String, http: HTTPClient) async throws -> [ServerPublicKey] {
        let reply = try await send(http: http, url: baseURL + "/api/v1/keys", method: .GET, headers: [], body: nil)
        struct Published: Decodable {
            struct Data: Decodable {
                var CurrentKeyId: String
                var Keys: [ServerPublicKey]
            }
            var data: Data
        }
        guard reply.status == 200, let published = try? JSONDecoder().decode(Published.self, from: reply.body) else {
            throw LemonClientError.malformedAnswer("GET /api/v1/keys answered \(reply.status)")
        }
        let keys = published.data.Keys
        return keys.filter { $0.keyId == published.data.CurrentKeyId } + keys.filter { $0.keyId != published.data.CurrentKeyId }
    }

    public func register(
        _ app: LemonApp, operatingSystem: String = "Android", language: String = "en", pushToken: String? = nil
    ) async throws -> LemonSession {
        let builder = try HandshakeBuilder(serverKey: serverKey)
        return try await handshake(
            builder, body: try builder.registration(app: app, operatingSystem: operatingSystem, language: language, pushToken: pushToken))
    }

    public func authenticate(_ app: LemonApp, language: String? = nil) async throws -> LemonSession {
        let builder = try HandshakeBuilder(serverKey: serverKey)
        return try await handshake(builder, body: try builder.authentication(app: app, language: language))
    }

    /// Posts a handshake body (as built, or altered by a test) and checks the answer.
    public func handshake(_ builder: HandshakeBuilder, body: [String: String]) async throws -> LemonSession {
        let reply = try await Self.send(
            http: http, url: baseURL + "/api/v1/devices", method: .POST, headers: [("Content-Type", "application/json")] + handshakeHeaders,
            body: try JSONEncoder().encode(body))
        let envelope = try Envelope(reply.body)
        guard reply.status == 200, let data = envelope.data as? [String: Any] else {
            throw LemonClientError.refused(status: reply.status, message: envelope.message ?? "")
        }
        return try builder.session(from: data.compactMapValues { $0 as? String })
    }

    /// An encrypted call: `body` (JSON) is sealed with the session's keys, and the answer opened with them. `headers` are
    /// sent besides the session's (a W3C `traceparent`, say).
    public func call(
        _ method: HTTPMethod, _ path: String, body: Data? = nil, session: LemonSession, headers: [(String, String)] = []
    ) async throws -> LemonReply {
        let sealed = body.map { Data(EncryptedPayload.seal($0, keys: session.keys).base64.utf8) }
        let reply = try await Self.send(
            http: http, url: baseURL + path, method: method,
            headers: [("Authorization", "Bearer \(session.accessToken)"), ("Content-Type", "text/plain")] + headers, body: sealed)
        onAnswer?(reply.headers)
        return try LemonReply(status: reply.status, body: reply.body, keys: session.keys)
    }

    /// One exchange with nothing added, for callers that build their own bodies (tampered ones, in tests).
    public static func send(
        http: HTTPClient, url: String, method: HTTPMethod, headers: [(String, String)], body: Data?
    ) async throws -> (status: Int, headers: HTTPHeaders, body: Data) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await http.execute(request, timeout: .seconds(30))
        let collected = try await response.body.collect(upTo: 16 * 1024 * 1024)
        return (Int(response.status.code), response.headers, Data(collected.readableBytesView))
    }
}

/// An answer of an encrypted route: opened when it was sealed, read as is when the gateway answered in the
/// clear (errors before the session's keys apply).
public struct LemonReply: Sendable {
    public let status: Int
    public let wasEncrypted: Bool
    /// The envelope's JSON.
    public let json: Data
    public let envelope: Envelope

    public init(status: Int, body: Data, keys: SessionKeys) throws {
        self.status = status
        if body.first == UInt8(ascii: "{") {
            self.wasEncrypted = false
            self.json = body
        } else {
            self.wasEncrypted = true
            self.json = try EncryptedPayload(body: body).open(keys: keys)
        }
        self.envelope = try Envelope(json)
    }
}

/// `{"data":…,"meta":{"success","code","message"}}`.
public struct Envelope: Sendable {
    /// `data` as JSON text (`null` when there is none).
    public let dataJSON: Data
    public let success: Bool?
    public let code: Int?
    public let message: String?

    public init(_ json: Data) throws {
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any], let meta = object["meta"] as? [String: Any] else {
            throw LemonClientError.malformedAnswer(String(decoding: json.prefix(200), as: UTF8.self))
        }
        self.dataJSON = (try? JSONSerialization.data(withJSONObject: object["data"] ?? NSNull(), options: [.fragmentsAllowed])) ?? Data("null".utf8)
        self.success = meta["success"] as? Bool
        self.code = meta["code"] as? Int
        self.message = meta["message"] as? String
    }

    /// `data` as Foundation objects (nil for JSON null).
    public var data: Any? {
        let value = try? JSONSerialization.jsonObject(with: dataJSON, options: [.fragmentsAllowed])
        return value is NSNull ? nil : value
    }

    public func decodeData<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONDecoder().decode(T.self, from: dataJSON)
    }
}
