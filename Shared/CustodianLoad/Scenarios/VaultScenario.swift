import CustodianVault
import Foundation

/// The OwnYourData app (docs/vault.md): users with a repo, logged in before the clock; then the repo's public key
/// fetched, the newest items read, and (half the time) a batch of ten records sealed with the repo key as the
/// app seals them. Read back through the items API, by nonce.
struct VaultScenario: Scenario {
    let name = "vault"
    static let repo = "loadgen.notes"
    static let batchSize = 10

    struct User: Sendable {
        var accessToken: String
        var publicKey: String
        var repoID: Int
    }

    let users: [User]
    let ledger = Ledger<String>()

    static func prepare(client: LoadClient, users count: Int, log: @escaping @Sendable (String) -> Void) async throws -> VaultScenario {
        let users = try await concurrently(Array(0..<count), width: 4) { _ in try await createUser(client) }
        log("vault      \(users.count) users with a repo, logged in")
        return VaultScenario(users: users)
    }

    /// A user with the repo, logged in with the password as the app logs in.
    static func createUser(_ client: LoadClient) async throws -> User {
        let email = "loadgen-\(UUID().uuidString.prefix(12).lowercased())@example.org"
        let password = UUID().uuidString
        let user = try await client.setupJSON(
            "POST /admin/v1/vault/users", .POST, "/admin/v1/vault/users",
            json: #"{"email":"\#(email)","name":"Load generator","password":"\#(password)"}"#, admin: true)
        guard let id = user["id"] as? Int else { throw SetupError("POST /admin/v1/vault/users gave no id") }
        let repo = try await client.setupJSON(
            "POST …/repos", .POST, "/admin/v1/vault/users/\(id)/repos", json: #"{"identifier":"\#(Self.repo)"}"#, admin: true)
        guard let publicKey = repo["public_key"] as? String, let repoID = repo["id"] as? Int else { throw SetupError("the repo has no public key") }
        let login = try await client.setupJSON(
            "POST /oauth/token", .POST, "/oauth/token",
            body: OpenSenseScenario.form([("grant_type", "password"), ("email", email), ("password", password)]),
            headers: [("Content-Type", "application/x-www-form-urlencoded")])
        guard let token = login["access_token"] as? String else { throw SetupError("the login gave no access token") }
        return User(accessToken: token, publicKey: publicKey, repoID: repoID)
    }

    func operation(_ number: Int, client: LoadClient) async -> OperationOutcome {
        let user = users[number % users.count]
        let auth = [("Authorization", "Bearer \(user.accessToken)")]
        let kind: String
        do {
            switch number % 4 {
            case 0:
                kind = "pub_key"
                return .answered(kind, try await client.send(.GET, "/api/repos/\(Self.repo)/pub_key", headers: auth).status)
            case 1:
                kind = "read"
                return .answered(kind, try await client.send(.GET, "/api/repos/\(Self.repo)/items?last=10", headers: auth).status)
            default:
                kind = "sealed-batch"
                let records = try (0..<Self.batchSize).map { index in
                    try OYDRecord.seal(
                        #"{"operation":\#(number),"record":\#(index),"timestamp":"2020-06-01T14:05:00Z"}"#, publicKeyHex: user.publicKey)
                }
                let body = try JSONEncoder().encode(records)
                let reply = try await client.send(.POST, "/api/repos/\(Self.repo)/items", headers: auth, body: body)
                if reply.succeeded { ledger.record(records.map(\.nonce)) }
                return .answered(kind, reply.status)
            }
        } catch {
            return .failed(number % 4 == 0 ? "pub_key" : number % 4 == 1 ? "read" : "sealed-batch", error)
        }
    }

    func verify(client: LoadClient) async throws -> Verification {
        let found = try await concurrently(users) { user in
            var nonces: [String] = []
            var page = 1
            while true {
                let reply = try await client.send(
                    .GET, "/api/repos/\(Self.repo)/items?page=\(page)&size=1000",
                    headers: [("Authorization", "Bearer \(user.accessToken)")], timeout: .seconds(120))
                guard reply.succeeded, let items = try JSONSerialization.jsonObject(with: reply.body) as? [[String: Any]] else {
                    throw SetupError.refused("reading the items back", reply)
                }
                nonces += items.compactMap { $0["nonce"] as? String }
                if items.count < 1000 { break }
                page += 1
            }
            return nonces
        }
        return ledger.verification(name, found: found.flatMap { $0 })
    }
}
