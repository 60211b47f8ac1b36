import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// What a command that calls the gateway's admin API (`/admin/v1`) needs: where the gateway is, an admin token, and
/// whose certificate to trust. The same flags for every such command.
struct AdminAPIOptions: ParsableArguments {
    @Option(help: "The gateway's URL.") var server = TLSTrustOptions.defaultServer
    @Option(parsing: .unconditional, help: "An admin token (default: CUSTODIAN_ADMIN_TOKEN, else the file --token-file).") var token: String?
    @Option(help: "A file holding the admin token (custodian up keeps one in <data-dir>/admin-token).") var tokenFile = ".custodian/admin-token"
    @OptionGroup var trust: TLSTrustOptions

    func adminToken() throws -> String {
        if let token { return token }
        if let token = ProcessInfo.processInfo.environment["CUSTODIAN_ADMIN_TOKEN"], !token.isEmpty { return token }
        guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
            throw ValidationError("pass --token, set CUSTODIAN_ADMIN_TOKEN or point --token-file at an admin token")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `target` is the path (and query) under the server, encoded already. Answers the status and the body (up to 1 MiB).
    func send(
        _ method: HTTPMethod, _ target: String, body: Data? = nil, contentType: String? = nil, timeout: TimeAmount = .seconds(120)
    ) async throws -> (status: HTTPResponseStatus, body: Data) {
        let token = try adminToken()
        let client = try trust.httpClient()
        let result: Result<(HTTPResponseStatus, Data), any Error>
        do {
            var request = HTTPClientRequest(url: server.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + target)
            request.method = method
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
            if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
            let response = try await client.execute(request, timeout: timeout)
            result = .success((response.status, Data((try await response.body.collect(upTo: 1 << 20)).readableBytesView)))
        } catch {
            result = .failure(error)
        }
        try? await client.shutdown()
        return try result.mapError { trust.explain($0, server: server) }.get()
    }

    /// A refusal in the admin API's shape (`{"error":{"message","details"?}}`) as one error, its details a line each.
    static func refusal(_ what: String, status: HTTPResponseStatus, answer: Data) -> CLIError {
        guard let object = try? JSONSerialization.jsonObject(with: answer) as? [String: Any], let error = object["error"] as? [String: Any],
            let summary = error["message"] as? String
        else { return CLIError("\(what) was refused (\(status.code)): \(String(decoding: answer, as: UTF8.self))") }
        var message = "\(what) was refused (\(status.code)): \(summary)"
        for problem in error["details"] as? [[String: Any]] ?? [] {
            message += "\n  line \(problem["line"] ?? "?"): \(problem["message"] ?? "")"
        }
        return CLIError(message)
    }

    /// A path segment percent-encoded (a device name or id may hold anything).
    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }
}
