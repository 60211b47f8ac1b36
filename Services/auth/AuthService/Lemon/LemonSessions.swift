import CustodianContracts
import CustodianLemon
import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import PostgresNIO

/// Tracing-app sessions: their payload keys (sealed with the deployment key), their end (expiry, revocation,
/// the app deactivated or deleted), and the IVs already used in them, so that no payload is accepted twice.
/// Every gateway replica asks here for each request, which is what makes a revocation immediate everywhere.
struct LemonSessions: Sendable {
    let database: Database
    let sealer: Sealer

    static let lifetime: TimeInterval = 3600

    func open(app: Int64, keys: SessionKeys, lifetime: TimeInterval, logger: Logger) async throws -> String {
        let session = UUID().uuidString.lowercased()
        let sealed = try sealer.seal(keys.wire.encryptionKey + " " + keys.wire.macKey, context: Self.sealingContext(session))
        // Sessions a day over leave with their IVs, a few at each handshake, whichever app they were of: the
        // tables stay small without a sweeper of their own.
        try await database.query(
            """
            DELETE FROM auth.lemon_sessions WHERE id IN (
                SELECT id FROM auth.lemon_sessions WHERE expires_at < now() - interval '1 day' LIMIT 100)
            """, logger: logger)
        try await database.query(
            """
            INSERT INTO auth.lemon_sessions (id, app_id, keys_sealed, expires_at)
            VALUES (\(session)::uuid, \(app), \(sealed), now() + make_interval(secs => \(lifetime)))
            """, logger: logger)
        return session
    }

    /// The keys of a live session.
    func keys(_ input: SessionInput, context: CallContext) async throws -> WireSessionKeys {
        try requireUUIDs(input, context: context)
        let rows = try await database.query(
            """
            SELECT s.keys_sealed FROM auth.lemon_sessions s JOIN auth.lemon_apps a ON a.id = s.app_id
            WHERE s.id = \(input.session)::uuid AND a.device_id = \(input.device)::uuid
              AND s.revoked_at IS NULL AND s.expires_at > now() AND a.deactivated_at IS NULL
            """, logger: context.logger)
        for try await sealed in rows.decode(Data.self) {
            let parts = try sealer.open(sealed, context: Self.sealingContext(input.session)).split(separator: " ")
            guard parts.count == 2 else { throw RPCError.internal("sealed session keys are malformed") }
            return WireSessionKeys(encryptionKey: String(parts[0]), macKey: String(parts[1]))
        }
        throw Self.ended
    }

    /// Admits one request of a live session: its payload's IV (if it has a body) must be new in the session.
    func use(_ input: SessionInput, context: CallContext) async throws -> Empty {
        try requireUUIDs(input, context: context)
        let rows = try await database.query(
            """
            SELECT 1 FROM auth.lemon_sessions s JOIN auth.lemon_apps a ON a.id = s.app_id
            WHERE s.id = \(input.session)::uuid AND a.device_id = \(input.device)::uuid
              AND s.revoked_at IS NULL AND s.expires_at > now() AND a.deactivated_at IS NULL
            """, logger: context.logger)
        var live = false
        for try await _ in rows.decode(Int.self) { live = true }
        guard live else { throw Self.ended }
        guard let ivText = input.iv else { return Empty() }
        guard let iv = Data(base64Encoded: ivText), iv.count == EncryptedPayload.ivLength else {
            throw RPCError.badRequest("The payload's IV is malformed")
        }
        let inserted = try await database.query(
            """
            INSERT INTO auth.lemon_payload_ivs (session_id, iv) VALUES (\(input.session)::uuid, \(iv))
            ON CONFLICT DO NOTHING RETURNING 1
            """, logger: context.logger)
        var fresh = false
        for try await _ in inserted.decode(Int.self) { fresh = true }
        guard fresh else { throw RPCError.badRequest("The payload was already received (replayed IV)", reason: "replayed_payload") }
        return Empty()
    }

    func revokeAll(app: Int64, logger: Logger) async throws {
        try await database.query(
            "UPDATE auth.lemon_sessions SET revoked_at = now() WHERE app_id = \(app) AND revoked_at IS NULL", logger: logger)
    }

    static let ended = RPCError.unauthenticated("Missing or Invalid JWT: the session has ended", reason: "session_ended")

    /// Ids that are not UUIDs name no session (and would make PostgreSQL's cast fail).
    private func requireUUIDs(_ input: SessionInput, context: CallContext) throws {
        guard UUID(uuidString: input.session) != nil, UUID(uuidString: input.device) != nil else { throw Self.ended }
    }

    /// Keyed by the session's id, whose text (`id::text`) is the lower-case UUID the session was sealed for.
    static let sealed = SealedColumn(table: "auth.lemon_sessions", column: "keys_sealed", key: "id", contextPrefix: "lemon-session:")

    private static func sealingContext(_ session: String) -> String { sealed.context(session) }
}
