import Foundation

/// The benchmarks' workloads, set up as the load generator's scenarios are.
public enum Workloads {
    /// Twomes devices that upload only heartbeats (one measurement each).
    public static func twomesHeartbeats(client: LoadClient, devices: Int, log: @escaping @Sendable (String) -> Void) async throws -> any Scenario {
        try await TwomesScenario.prepare(client: client, devices: devices, shape: .heartbeats, log: log)
    }

    /// Twomes devices that upload `measurements` measurements at a time.
    public static func twomesBatches(
        client: LoadClient, devices: Int, measurements: Int,
        log: @escaping @Sendable (String) -> Void
    ) async throws -> any Scenario {
        try await TwomesScenario.prepare(client: client, devices: devices, shape: .batches(measurements), log: log)
    }

    /// A vault user with a repo, logged in: what a benchmark of the vault's writes needs.
    public struct VaultAccount: Sendable {
        public var accessToken: String
        public var publicKey: String
        public var repoID: Int
        public var repo: String
    }

    public static func vaultAccount(client: LoadClient) async throws -> VaultAccount {
        let user = try await VaultScenario.createUser(client)
        return VaultAccount(accessToken: user.accessToken, publicKey: user.publicKey, repoID: user.repoID, repo: VaultScenario.repo)
    }

    /// One request, again and again, whose expected answer may be a refusal (the split tax: a 400 without SQL).
    public static func request(_ name: String, method: String, path: String, body: String, expectedStatus: Int) -> any Scenario {
        FixedRequest(name: name, method: method, path: path, body: body, expectedStatus: expectedStatus)
    }
}

struct FixedRequest: Scenario {
    let name: String
    let method: String
    let path: String
    let body: String
    let expectedStatus: Int

    func operation(_ number: Int, client: LoadClient) async -> OperationOutcome {
        do {
            let reply = try await client.send(.init(rawValue: method), path, json: body)
            return .answered(name, reply.status, expected: expectedStatus)
        } catch {
            return .failed(name, error)
        }
    }

    func verify(client: LoadClient) async throws -> Verification {
        Verification(scenario: name, acknowledged: 0, found: 0, lost: 0, duplicated: 0)
    }
}
