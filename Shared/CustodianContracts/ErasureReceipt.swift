import CustodianHTTP
import CustodianRPC
import Foundation

/// What an erasure deleted (docs/erasure.md): its target by pseudonymous id, counts by kind, when, and by which admin
/// identity. It holds no personal data: no token, value, location or name of a participant. Erasing again what is
/// gone answers a receipt whose counts are all 0, so a retried erasure is safe and says that nothing was left.
public struct ErasureReceipt: RoutedJSON, Equatable {
    /// What kind of thing was erased: `twomes_account`, `twomes_device`, `opensense_device`, `vault_user`, `lemon_app`,
    /// `api_consumer`, `short_link`.
    public var target: String
    /// The target's id as the route named it (a pseudonym, a device id).
    public var id: String
    /// Rows deleted (or detached, for `devices_detached`) by kind.
    public var deleted: [String: Int]
    /// When the erasure committed, ISO 8601 in UTC.
    public var erased_at: String
    /// The admin identity that asked for it (docs/admin.md), never its token.
    public var erased_by: Identity

    public struct Identity: Codable, Sendable, Equatable {
        public var id: String
        public var label: String?

        public init(id: String, label: String?) {
            self.id = id
            self.label = label
        }
    }

    public init(target: String, id: String, deleted: [String: Int], erased_at: String, erased_by: Identity) {
        self.target = target
        self.id = id
        self.deleted = deleted
        self.erased_at = erased_at
        self.erased_by = erased_by
    }

    /// A receipt of `deleted`, by the caller's admin identity, now.
    public init(target: String, id: String, deleted: [String: Int], context: CallContext) {
        self.init(
            target: target, id: id, deleted: deleted, erased_at: Date().formatted(.iso8601),
            erased_by: Identity(id: context.principal?.id ?? "-", label: context.principal?.name))
    }

    /// Whether anything was there to erase.
    public var erasedAnything: Bool { deleted.values.contains { $0 > 0 } }
}
