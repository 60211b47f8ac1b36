import Foundation
import Synchronization

/// One kind of client the load generator plays: it is set up before the clock starts (accounts, devices, users,
/// consumers, through the admin API), then makes one request per operation as the real client would, and at
/// the end reads back through the researcher exports or the API everything the platform acknowledged.
public protocol Scenario: Sendable {
    var name: String { get }
    /// One request; `number` counts the run's operations, so each can write something of its own.
    func operation(_ number: Int, client: LoadClient) async -> OperationOutcome
    /// Every acknowledged write, found exactly once?
    func verify(client: LoadClient) async throws -> Verification
}

/// What one operation did: its kind (`heartbeat`, `sealed-batch`) and the answer's status, or why there was none.
public struct OperationOutcome: Sendable {
    public var kind: String
    public var status: Int?
    public var failure: String?
    /// The status this operation should get, when it is not a 2xx (a benchmark of a refusal).
    public var expectedStatus: Int?

    public static func answered(_ kind: String, _ status: Int, expected: Int? = nil) -> OperationOutcome {
        OperationOutcome(kind: kind, status: status, failure: nil, expectedStatus: expected)
    }

    public static func failed(_ kind: String, _ error: any Error) -> OperationOutcome {
        OperationOutcome(kind: kind, status: nil, failure: String(describing: error).prefix(200).description, expectedStatus: nil)
    }

    public var succeeded: Bool {
        guard let status else { return false }
        if let expectedStatus { return status == expectedStatus }
        return (200..<300).contains(status)
    }
}

/// The read-back of one scenario's writes.
public struct Verification: Sendable, Codable, Equatable {
    public var scenario: String
    /// Writes the platform acknowledged (2xx).
    public var acknowledged: Int
    /// Of those, how many were read back.
    public var found: Int
    /// Acknowledged but not found.
    public var lost: Int
    /// Found more than once.
    public var duplicated: Int
    public var notes: [String] = []
}

/// The scenarios the load generator knows, by name.
public enum ScenarioKind: String, Sendable, CaseIterable, Codable {
    case twomes, opensense, vault, lemon, geotag

    /// The mix of `--scenario mixed`: a research platform's day, mostly device uploads.
    public static let mixedWeights: [(ScenarioKind, Int)] = [(.twomes, 40), (.opensense, 15), (.vault, 15), (.lemon, 20), (.geotag, 10)]

    /// Sets the scenario up with `clients` simulated clients.
    public func prepare(client: LoadClient, clients: Int, log: @escaping @Sendable (String) -> Void) async throws -> any Scenario {
        switch self {
        case .twomes: try await TwomesScenario.prepare(client: client, devices: clients, log: log)
        case .opensense: try await OpenSenseScenario.prepare(client: client, devices: clients, log: log)
        case .vault: try await VaultScenario.prepare(client: client, users: max(1, clients / 4), log: log)
        case .lemon: try await LemonScenario.prepare(client: client, apps: clients, log: log)
        case .geotag: try await GeotagScenario.prepare(client: client, consumers: max(1, clients / 16), log: log)
        }
    }
}

/// A set of acknowledged writes, shared by a scenario's concurrent operations.
final class Ledger<Key: Hashable & Sendable>: Sendable {
    private let keys = Mutex<[Key]>([])

    func record(_ key: Key) { keys.withLock { $0.append(key) } }
    func record(_ new: [Key]) { keys.withLock { $0.append(contentsOf: new) } }
    var all: [Key] { keys.withLock { $0 } }

    /// Compares what was acknowledged with what was read back (`found` may hold a key more than once).
    func verification(_ scenario: String, found: [Key], notes: [String] = []) -> Verification {
        let acknowledged = all
        var counts: [Key: Int] = [:]
        for key in found { counts[key, default: 0] += 1 }
        let acknowledgedSet = Set(acknowledged)
        let lost = acknowledgedSet.filter { counts[$0] == nil }.count
        let duplicated = counts.filter { acknowledgedSet.contains($0.key) && $0.value > 1 }.count
        return Verification(
            scenario: scenario, acknowledged: acknowledgedSet.count, found: acknowledgedSet.count - lost,
            lost: lost, duplicated: duplicated, notes: notes)
    }
}
