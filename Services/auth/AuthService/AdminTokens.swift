import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import PostgresNIO

/// Researcher/admin credentials: random bearer tokens, stored only as SHA-256 hashes.
public struct AdminTokens: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Creates a token and returns it; it cannot be read back later.
    public func create(label: String, logger: Logger) async throws -> (id: UUID, token: String) {
        let token = SecretToken.generate()
        let hash = SecretToken.hash(token)
        let rows = try await database.query(
            "INSERT INTO auth.admin_tokens (token_hash, label) VALUES (\(hash), \(label)) RETURNING id", logger: logger)
        for try await id in rows.decode(UUID.self) { return (id, token) }
        throw RPCError.internal("admin token was not stored")
    }

    public func activeCount(logger: Logger) async throws -> Int {
        let rows = try await database.query("SELECT count(*) FROM auth.admin_tokens WHERE revoked_at IS NULL", logger: logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// The admin a token belongs to, or `unauthenticated`.
    func authenticate(_ token: String, logger: Logger) async throws -> Principal {
        let hash = SecretToken.hash(token)
        let rows = try await database.query(
            "SELECT id, token_hash FROM auth.admin_tokens WHERE token_hash = \(hash) AND revoked_at IS NULL", logger: logger)
        for try await (id, storedHash) in rows.decode((UUID, Data).self) where SecretToken.constantTimeEquals(storedHash, hash) {
            return Principal(kind: "admin", id: id.uuidString.lowercased(), scopes: ["admin"])
        }
        throw RPCError.unauthenticated("Invalid admin session token", reason: "invalid_admin_token")
    }
}
