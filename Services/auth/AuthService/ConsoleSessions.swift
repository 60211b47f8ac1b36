import CustodianContracts
import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import PostgresNIO

/// The researcher console's logins: a session token per login, kept only as its hash, that ends after
/// ``lifetime``, at logout, or when the admin token it was opened with is revoked or expires.
struct ConsoleSessions: Sendable {
    let database: Database
    let adminTokens: AdminTokens
    /// A working day: a console left open overnight asks for the token again.
    static let lifetime = 8 * 3600

    func login(_ adminToken: String, logger: Logger) async throws -> ConsoleSession {
        let admin = try await adminTokens.authenticate(adminToken, logger: logger)
        guard let adminID = UUID(uuidString: admin.id) else { throw RPCError.internal("admin id is not a UUID") }
        let token = SecretToken.generate()
        // Sessions a day past their end are of no use to anyone: each login clears them away.
        try await database.query("DELETE FROM auth.console_sessions WHERE expires_at < now() - interval '1 day'", logger: logger)
        try await database.query(
            """
            INSERT INTO auth.console_sessions (token_hash, admin_token_id, expires_at)
            VALUES (\(SecretToken.hash(token)), \(adminID), now() + make_interval(secs => \(Self.lifetime)))
            """, logger: logger)
        return ConsoleSession(token: token, expiresInSeconds: Self.lifetime)
    }

    /// The admin whose live session this is.
    func session(_ token: String, logger: Logger) async throws -> Principal {
        let rows = try await database.query(
            """
            SELECT a.id, a.label, a.scope FROM auth.console_sessions s JOIN auth.admin_tokens a ON a.id = s.admin_token_id
            WHERE s.token_hash = \(SecretToken.hash(token)) AND s.revoked_at IS NULL AND s.expires_at > now() AND a.revoked_at IS NULL
              AND (a.expires_at IS NULL OR a.expires_at > now())
            """, logger: logger)
        for try await (id, label, scope) in rows.decode((UUID, String, String).self) {
            return AdminTokens.principal(id: id, label: label, scope: scope)
        }
        throw RPCError.unauthenticated("The console session has ended; log in again", reason: "console_session_ended")
    }

    func logout(_ token: String, logger: Logger) async throws {
        try await database.query(
            "UPDATE auth.console_sessions SET revoked_at = now() WHERE token_hash = \(SecretToken.hash(token)) AND revoked_at IS NULL",
            logger: logger)
    }
}
