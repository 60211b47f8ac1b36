import Foundation
import NIOHTTP1

/// `custodian admin erase-synthetic`: every record marked synthetic (what loadgen and bench made, docs/operations.md
/// "Synthetic data") found through the admin lists (`include_synthetic=only`) and erased through the erasure routes,
/// as an owner would erase them one by one: accounts first (their readings, links), then the devices they leave
/// detached, OpenSense devices, vault users, API consumers (with their routes) and app instances (with their submissions).
public enum SyntheticCleanup {
    /// One kind of record: the list that finds it, the key of its entries, and the erasure route of one.
    struct Kind: Sendable {
        var name: String
        var list: String
        var key: String
        var id: String
        /// The query parameter that pages the list by the last id, nil for an unpaged list.
        var after: String?
        var erase: @Sendable (String) -> String
    }

    static let kinds: [Kind] = [
        Kind(name: "twomes accounts", list: "/admin/v1/accounts", key: "accounts", id: "pseudonym", after: "after") { "/admin/v1/accounts/\($0)" },
        Kind(name: "twomes devices", list: "/admin/v1/devices", key: "devices", id: "name", after: "after") { "/admin/v1/devices/\(escaped($0))" },
        Kind(name: "opensense devices", list: "/admin/v1/opensense/devices", key: "devices", id: "device_id", after: nil) {
            "/admin/v1/opensense/devices/\(escaped($0))"
        },
        Kind(name: "vault users", list: "/admin/v1/vault/users", key: "users", id: "id", after: "after") { "/admin/v1/vault/users/\($0)" },
        Kind(name: "api consumers", list: "/admin/v1/api-consumers", key: "consumers", id: "consumer_key", after: nil) {
            "/admin/v1/api-consumers/\(escaped($0))"
        },
        Kind(name: "lemon app instances", list: "/admin/v1/lemon/apps", key: "apps", id: "device_id", after: "after") {
            "/admin/v1/lemon/apps/\(escaped($0))"
        },
    ]

    /// What the clean-up erased: records by kind, and the receipts' counts summed by what they deleted.
    public struct Summary: Sendable, Equatable {
        public var records: [String: Int] = [:]
        public var deleted: [String: Int] = [:]
    }

    public static func run(client: LoadClient, log: @escaping @Sendable (String) -> Void) async throws -> Summary {
        var summary = Summary()
        for kind in kinds {
            let ids = try await synthetic(kind, client: client)
            let receipts = try await concurrently(ids) { id -> [String: Int] in
                let reply = try await client.send(.DELETE, kind.erase(id), admin: true)
                guard reply.succeeded, let deleted = (reply.json?["deleted"] as? [String: Any])?.compactMapValues({ $0 as? Int }) else {
                    throw SetupError("erasing \(kind.name) \(id) was refused: \(reply.status) \(reply.text.prefix(300))")
                }
                return deleted
            }
            summary.records[kind.name] = ids.count
            for receipt in receipts { summary.deleted.merge(receipt, uniquingKeysWith: +) }
            log("erased     \(ids.count) \(kind.name)")
        }
        return summary
    }

    /// The ids of every synthetic record of `kind`, page by page.
    static func synthetic(_ kind: Kind, client: LoadClient) async throws -> [String] {
        var ids: [String] = []
        var after: String?
        while true {
            var path = kind.list + "?include_synthetic=only"
            if let parameter = kind.after {
                path += "&limit=1000"
                if let after { path += "&\(parameter)=\(escaped(after))" }
            }
            let reply = try await client.send(.GET, path, admin: true)
            guard reply.succeeded, let entries = reply.json?[kind.key] as? [[String: Any]] else {
                throw SetupError("listing synthetic \(kind.name) was refused: \(reply.status) \(reply.text.prefix(300))")
            }
            ids += entries.compactMap { entry in entry[kind.id].map { "\($0)" } }
            guard kind.after != nil, let next = reply.json?["next_after"], !(next is NSNull) else { return ids }
            after = "\(next)"
        }
    }

    static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?&=+"))) ?? text
    }
}
