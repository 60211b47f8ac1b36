import CustodianRuntime

/// How many replicas of each service `custodian up` runs: `devices=3,vault=2`, one of every other service.
struct ReplicaCounts: Equatable {
    private(set) var counts: [String: Int] = [:]

    static let maximum = 16
    static let environmentKey = "CUSTODIAN_REPLICAS"

    init(_ text: String?) throws {
        guard let text, !text.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        for part in text.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, let count = Int(pair[1]) else {
                throw CLIError("--replicas: '\(part)' is not service=count (for example devices=3,vault=2)")
            }
            let service = pair[0]
            if service == "gateway" {
                // Hummingbird binds its listening socket itself, with SO_REUSEADDR only, so a second gateway cannot
                // share the port; one gateway uses every core already (docs/operations.md, "Replicas").
                guard count == 1 else {
                    throw CLIError("--replicas: one gateway per machine (it uses every core already; see docs/operations.md, Replicas)")
                }
                continue
            }
            guard Platform.services.contains(service) else {
                throw CLIError("--replicas: unknown service '\(service)'; the services are \(Platform.services.joined(separator: ", "))")
            }
            guard (1...Self.maximum).contains(count) else {
                throw CLIError("--replicas: \(service)=\(pair[1]): a service runs 1 to \(Self.maximum) replicas")
            }
            counts[service] = count
        }
    }

    func count(of service: String) -> Int { counts[service] ?? 1 }

    /// The replicas' names, which are also their instance names (and so their sockets' names): the service's own
    /// name when it runs once, as before replicas existed, else `devices-1`, `devices-2`, …
    func instances(of service: String) -> [String] {
        let count = count(of: service)
        return count == 1 ? [service] : (1...count).map { "\(service)-\($0)" }
    }

    var total: Int { Platform.services.reduce(0) { $0 + count(of: $1) } }
}
