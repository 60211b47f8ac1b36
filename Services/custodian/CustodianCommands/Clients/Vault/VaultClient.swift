import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// What `custodian vault open --server` does, as the app's owner would: log in with the password grant and
/// ask for the repo's items decrypted with the same password.
struct VaultClient {
    let server: String
    let trust: TLSTrustOptions

    func decryptedItems(email: String, password: String, repo: String) async throws -> String {
        let client = try trust.httpClient()
        do {
            let result = try await run(client, email: email, password: password, repo: repo)
            try await client.shutdown()
            return result
        } catch let error as VaultClientError {
            try? await client.shutdown()
            throw error
        } catch {
            try? await client.shutdown()
            throw trust.explain(error, server: server)
        }
    }

    private func run(_ client: HTTPClient, email: String, password: String, repo: String) async throws -> String {
        let login = try await post(client, "/oauth/token", ["grant_type": "password", "email": email, "password": password], token: nil)
        guard let token = (try JSONSerialization.jsonObject(with: login) as? [String: Any])?["access_token"] as? String else {
            throw VaultClientError("the login answered without an access token")
        }
        let escapedRepo = repo.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? repo
        let items = try await post(client, "/api/repos/\(escapedRepo)/items/decrypted", ["password": password], token: token)
        return String(decoding: items, as: UTF8.self)
    }

    private func post(_ client: HTTPClient, _ path: String, _ body: [String: String], token: String?) async throws -> Data {
        var request = HTTPClientRequest(url: server.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        let response = try await client.execute(request, timeout: .seconds(60))
        let data = Data((try await response.body.collect(upTo: 64 << 20)).readableBytesView)
        guard response.status == .ok else {
            throw VaultClientError("\(path) answered \(response.status.code): \(String(decoding: data, as: UTF8.self))")
        }
        return data
    }
}

struct VaultClientError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
