import CustodianContracts
import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import PostgresNIO

/// Researcher/admin identities: each a label, a scope, who made it and when, an optional expiry, and a random bearer
/// token stored only as its SHA-256 hash. Every request's token is looked up here (the gateway keeps no copy), so a
/// revoked or expired token stops working at every gateway at once.
public struct AdminTokens: Sendable {
    let database: Database
    /// `last_used_at` is written at most this often per identity, so that a busy token does not write on every request.
    static let lastUsedResolution = 60

    public init(database: Database) {
        self.database = database
    }

    /// Creates an identity and returns it with its token, which cannot be read back later.
    public func create(
        label: String, scope: AdminScope, expiresIn: Int? = nil, createdBy: String?, logger: Logger
    ) async throws
        -> CreatedAdminToken
    {
        let token = SecretToken.generate()
        let hash = SecretToken.hash(token)
        let rows = try await database.query(
            """
            INSERT INTO auth.admin_tokens (token_hash, label, scope, created_by, expires_at)
            VALUES (\(hash), \(label), \(scope.rawValue), \(createdBy),
                    CASE WHEN \(expiresIn)::integer IS NULL THEN NULL ELSE now() + make_interval(secs => \(expiresIn)) END)
            RETURNING \(unescaped: Self.columns)
            """, logger: logger)
        for row in rows.rows { return CreatedAdminToken(identity: try Self.identity(row), token: token) }
        throw RPCError.internal("admin token was not stored")
    }

    /// Identities that still work: not revoked, not expired.
    public func activeCount(logger: Logger) async throws -> Int {
        let rows = try await database.query(
            "SELECT count(*) FROM auth.admin_tokens WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())", logger: logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// Every identity, newest first, revoked and expired ones included (owners see who had access).
    public func list(logger: Logger) async throws -> AdminIdentityList {
        let rows = try await database.query("SELECT \(unescaped: Self.columns) FROM auth.admin_tokens ORDER BY created_at DESC, id", logger: logger)
        return AdminIdentityList(identities: try rows.rows.map(Self.identity))
    }

    /// Revokes an identity's token (and with it its console sessions); revoking it again changes nothing.
    public func revoke(_ id: UUID, logger: Logger) async throws -> AdminIdentity {
        let rows = try await database.query(
            """
            UPDATE auth.admin_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE id = \(id)
            RETURNING \(unescaped: Self.columns)
            """, logger: logger)
        for row in rows.rows { return try Self.identity(row) }
        throw RPCError.notFound("No admin identity has the id \(id.uuidString.lowercased())", reason: "unknown_identity")
    }

    /// The identity a token belongs to, or `unauthenticated` (unknown, revoked or expired: the same answer, so that a
    /// guess learns nothing).
    func authenticate(_ token: String, logger: Logger) async throws -> Principal {
        let hash = SecretToken.hash(token)
        let rows = try await database.query(
            """
            SELECT id, token_hash, label, scope, last_used_at IS NULL OR last_used_at < now() - make_interval(secs => \(Self.lastUsedResolution))
            FROM auth.admin_tokens
            WHERE token_hash = \(hash) AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
            """, logger: logger)
        for try await (id, storedHash, label, scope, stale) in rows.decode((UUID, Data, String, String, Bool).self)
        where SecretToken.constantTimeEquals(storedHash, hash) {
            if stale {
                try await database.query("UPDATE auth.admin_tokens SET last_used_at = now() WHERE id = \(id)", logger: logger)
            }
            return Self.principal(id: id, label: label, scope: scope)
        }
        throw RPCError.unauthenticated("Invalid admin session token", reason: "invalid_admin_token")
    }

    static func principal(id: UUID, label: String, scope: String) -> Principal {
        Principal(kind: .admin, id: id.uuidString.lowercased(), scopes: [scope], name: label)
    }

    private static let columns = "id, label, scope, created_by, created_at, expires_at, last_used_at, revoked_at"

    private static func identity(_ row: PostgresRow) throws -> AdminIdentity {
        let (id, label, scope, createdBy, createdAt, expiresAt, lastUsedAt, revokedAt) =
            try row.decode((UUID, String, String, String?, Date, Date?, Date?, Date?).self)
        return AdminIdentity(
            id: id.uuidString.lowercased(), label: label, scope: AdminScope(rawValue: scope) ?? .researcher,
            created_by: createdBy, created_at: Self.time(createdAt), expires_at: expiresAt.map(Self.time),
            last_used_at: lastUsedAt.map(Self.time), revoked_at: revokedAt.map(Self.time))
    }

    /// ISO 8601 in UTC, to the second: `2026-11-27T07:59:19Z`.
    static func time(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
