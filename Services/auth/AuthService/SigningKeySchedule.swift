import CustodianContracts
import CustodianRPC
import Foundation

/// The rules of signing-key rotation, as a pure function of the keys' times and a moment (docs/jwt.md, "Rotating the
/// signing key"). The key that signs is the newest whose `activates_at` has passed; a rotation publishes a key that
/// activates later, when every gateway has it; a key may leave the key set once no token it signed is still valid.
struct SigningKeySchedule: Sendable {
    struct Entry: Sendable, Equatable {
        var kid: String
        var createdAt: Date
        var activatesAt: Date
        var retiredAt: Date?
    }

    /// Oldest first (by activation).
    let entries: [Entry]
    let now: Date
    let longestTokenLifetime: TimeInterval

    init(_ entries: [Entry], now: Date, longestTokenLifetime: TimeInterval) {
        self.entries = entries.sorted { ($0.activatesAt, $0.createdAt, $0.kid) < ($1.activatesAt, $1.createdAt, $1.kid) }
        self.now = now
        self.longestTokenLifetime = longestTokenLifetime
    }

    /// The key new tokens are signed with: nil only before the first key exists.
    var signing: Entry? { entries.last { $0.retiredAt == nil && $0.activatesAt <= now } }

    /// A key published by a rotation that does not sign yet.
    var pending: Entry? { entries.first { $0.retiredAt == nil && $0.activatesAt > now } }

    /// When a newer key took (or, when it is published already, takes) over from `entry`.
    func supersededAt(_ entry: Entry) -> Date? {
        entries.first { $0.activatesAt > entry.activatesAt }?.activatesAt
    }

    func state(of entry: Entry) -> SigningKeyState {
        if entry.retiredAt != nil { return .retired }
        if entry.activatesAt > now { return .published }
        return entry.kid == signing?.kid ? .signing : .verifying
    }

    /// Refuses a rotation while another one's key is still waiting to sign: each would shorten the other's publication.
    func checkRotation() throws {
        guard let pending else { return }
        throw RPCError(
            .conflict, reason: "rotation_in_progress",
            message: "Key \(pending.kid) was published at \(Self.time(pending.createdAt)) and signs from \(Self.time(pending.activatesAt)); "
                + "rotate again after that")
    }

    /// The key `kid` names, when it may be retired now (`force`: even though tokens it signed may still be valid).
    /// A key already retired is answered as it is.
    func retirement(of kid: String, force: Bool) throws -> Entry {
        guard let entry = entries.first(where: { $0.kid == kid }) else {
            throw RPCError.notFound("No signing key has the kid \(kid)", reason: "unknown_signing_key")
        }
        switch state(of: entry) {
        case .retired:
            return entry
        case .published:
            throw RPCError(
                .conflict, reason: "key_not_signing_yet",
                message: "Key \(kid) signs from \(Self.time(entry.activatesAt)); a key is retired after a newer one has replaced it")
        case .signing:
            if let pending {
                throw RPCError(
                    .conflict, reason: "key_still_signs",
                    message: "Key \(kid) signs access tokens until \(Self.time(pending.activatesAt)), when key \(pending.kid) takes over; "
                        + "retire it after that")
            }
            let alone = !entries.contains { $0.kid != kid && $0.retiredAt == nil }
            throw RPCError(
                .conflict, reason: alone ? "only_signing_key" : "key_still_signs",
                message: (alone ? "Key \(kid) is the only signing key" : "Key \(kid) signs access tokens now")
                    + ": rotate first (POST /admin/v1/signing-keys, or custodian rotate jwt-key), then retire it once the new key signs")
        case .verifying:
            let superseded = supersededAt(entry) ?? entry.activatesAt
            let retirable = superseded.addingTimeInterval(longestTokenLifetime)
            guard force || now >= retirable else {
                throw RPCError(
                    .conflict, reason: "tokens_still_valid",
                    message: "Tokens signed with key \(kid) may be valid until \(Self.time(retirable)) (the longest token lifetime after "
                        + "\(Self.time(superseded)), when a newer key took over): retire it then, or now with force=true "
                        + "(custodian rotate jwt-key --retire \(kid) --force), after which those tokens are refused with 401")
            }
            return entry
        }
    }

    func info(_ entry: Entry) -> SigningKeyInfo {
        let superseded = supersededAt(entry)
        return SigningKeyInfo(
            kid: entry.kid, state: state(of: entry), created_at: Self.time(entry.createdAt), signs_from: Self.time(entry.activatesAt),
            superseded_at: superseded.map(Self.time), retirable_at: superseded.map { Self.time($0.addingTimeInterval(longestTokenLifetime)) },
            retired_at: entry.retiredAt.map(Self.time))
    }

    /// Newest first, as owners read them.
    var infos: [SigningKeyInfo] { entries.reversed().map(info) }

    static func time(_ date: Date) -> String { AdminTokens.time(date) }
}
