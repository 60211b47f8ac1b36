import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// The load generator's way to the platform: one HTTP client with a pool as large as the load needs, the
/// server's URL, and the admin token the set-up and the read-back use.
public struct LoadClient: Sendable {
    public let baseURL: String
    public let http: HTTPClient
    public let adminToken: String

    /// TLS trusts `caFile` (the data directory's certificate, by default) or, with `insecure`, anything.
    public static func make(baseURL: String, adminToken: String, caFile: String?, insecure: Bool, connections: Int) throws -> LoadClient {
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: try tlsConfiguration(caFile: caFile, insecure: insecure),
            timeout: .init(connect: .seconds(10)))
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: max(connections, 8))
        configuration.httpVersion = .http1Only
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        return LoadClient(baseURL: baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL, http: http, adminToken: adminToken)
    }

    /// Trusts `caFile` (the data directory's certificate, by default) or, with `insecure`, anything.
    public static func tlsConfiguration(caFile: String?, insecure: Bool) throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        if insecure {
            tls.certificateVerification = .none
        } else if let caFile {
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
            // `custodian up`'s certificate names 127.0.0.1 and localhost; a server reached by another name is
            // still the one whose certificate the caller handed over.
            tls.certificateVerification = .noHostnameVerification
        }
        return tls
    }

    public struct Reply: Sendable {
        public var status: Int
        public var headers: HTTPHeaders
        public var body: Data

        public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
        public var text: String { String(decoding: body, as: UTF8.self) }
        public var succeeded: Bool { (200..<300).contains(status) }
    }

    public func send(
        _ method: HTTPMethod, _ path: String, headers: [(String, String)] = [], body: Data? = nil,
        admin: Bool = false, timeout: TimeAmount = .seconds(30)
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if admin { request.headers.add(name: "Authorization", value: "Bearer \(adminToken)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            if !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
                request.headers.add(name: "Content-Type", value: "application/json")
            }
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await http.execute(request, timeout: timeout)
        AnswerTrace.note(response.headers)
        let collected = try await response.body.collect(upTo: 64 * 1024 * 1024)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Data(collected.readableBytesView))
    }

    public func send(_ method: HTTPMethod, _ path: String, json: String, headers: [(String, String)] = [], admin: Bool = false) async throws -> Reply
    {
        try await send(method, path, headers: headers, body: Data(json.utf8), admin: admin)
    }

    /// Whether the platform's rate limits are on, as its `/metrics` says (`custodian_rate_limits_enabled`); nil when it does not say.
    public func rateLimitsEnabled() async -> Bool? {
        guard let reply = try? await send(.GET, "/metrics", timeout: .seconds(10)), reply.succeeded else { return nil }
        for line in reply.text.split(separator: "\n") where line.hasPrefix("custodian_rate_limits_enabled ") {
            return line.hasSuffix(" 1") || line.hasSuffix(" 1.0")
        }
        return nil
    }

    /// Marks what a request creates as synthetic (docs/operations.md, "Synthetic data"): every set-up request carries
    /// it, so that no account, device, user, consumer or app instance of a load run mixes with a study's.
    public var syntheticHeader: (String, String) { ("X-Custodian-Synthetic", adminToken) }

    public func shutdown() async {
        try? await http.shutdown()
    }
}

/// A set-up step the platform refused: the load cannot start without it.
public struct SetupError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }

    /// A reply that should have succeeded, as an error that says what the server said.
    static func refused(_ step: String, _ reply: LoadClient.Reply) -> SetupError {
        var message = "\(step) was refused: \(reply.status) \(reply.text.prefix(300))"
        if reply.status == 429 {
            message +=
                "\n(the gateway's rate limits refuse a load from one address; run the platform with CUSTODIAN_RATE_LIMITS=off, see docs/operations.md)"
        }
        return SetupError(message)
    }
}

extension LoadClient {
    /// Sends a set-up request and returns its JSON object, or fails with what the server said. Refusals that end
    /// by themselves (429, 503) are waited out and retried a few times, as a polite client does.
    func setupJSON(
        _ step: String, _ method: HTTPMethod, _ path: String, json: String? = nil, body: Data? = nil,
        headers: [(String, String)] = [], admin: Bool = false
    ) async throws -> [String: Any] {
        var attempt = 0
        while true {
            let reply = try await send(
                method, path, headers: headers + [syntheticHeader], body: body ?? json.map { Data($0.utf8) }, admin: admin)
            if reply.succeeded, let object = reply.json { return object }
            attempt += 1
            if [429, 503].contains(reply.status), attempt < 4 {
                let seconds = reply.headers.first(name: "Retry-After").flatMap(Int.init) ?? 1
                try await Task.sleep(for: .seconds(min(max(seconds, 1), 10)))
                continue
            }
            throw SetupError.refused(step, reply)
        }
    }
}

/// Runs `body` for each of `items`, at most `width` at a time: set-up in bulk without a burst of thousands.
func concurrently<Item: Sendable, Result: Sendable>(
    _ items: [Item], width: Int = 8,
    _ body: @escaping @Sendable (Item) async throws -> Result
) async throws -> [Result] {
    try await withThrowingTaskGroup(of: (Int, Result).self) { group in
        var results = [Result?](repeating: nil, count: items.count)
        var next = 0
        for _ in 0..<min(width, items.count) {
            let index = next
            group.addTask { (index, try await body(items[index])) }
            next += 1
        }
        while let (index, result) = try await group.next() {
            results[index] = result
            if next < items.count {
                let index = next
                group.addTask { (index, try await body(items[index])) }
                next += 1
            }
        }
        return results.compactMap { $0 }
    }
}
