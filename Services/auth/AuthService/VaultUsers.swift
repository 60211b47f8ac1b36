import CustodianContracts
import CustodianHTTP
import CustodianRPC
import CustodianRuntime
import CustodianSodium
import Foundation
import Logging
import PostgresNIO

/// The data vault's users: their logins live here, their keys in the vault.
struct VaultUsers: Sendable {
    let database: Database
    let services: RPCClient
    let throttle: PasswordThrottle

    /// `POST /admin/v1/vault/users`: a user and, in the vault, the user's key pair sealed with the password.
    func create(_ request: VaultUserCreate, context: CallContext) async throws -> VaultUser {
        let email = request.email
        let password = request.password
        let hash = try await BlockingWork.run { try Sodium.passwordHash(password) }
        let rows = try await database.query(
            """
            INSERT INTO auth.vault_users (email, name, password_hash, synthetic)
            VALUES (\(email), \(request.name), \(hash), \(context.createsSynthetic))
            ON CONFLICT (email) DO NOTHING RETURNING id
            """, logger: context.logger)
        var created: Int64?
        for try await id in rows.decode(Int64.self) { created = id }
        guard let id = created else { throw RPCError(.conflict, reason: "email_in_use", message: "A user with this email exists already") }
        do {
            _ = try await services.call(VaultMethods.usersInit, input: VaultUserKeysInput(userID: id, password: request.password), context: context)
        } catch {
            // No login without a vault behind it.
            _ = try? await database.query("DELETE FROM auth.vault_users WHERE id = \(id)", logger: context.logger)
            throw error
        }
        return VaultUser(id: id, email: email, name: request.name)
    }

    struct Credentials: Sendable {
        var id: Int64
        var name: String
        var passwordHash: String
    }

    func find(email: String, logger: Logger) async throws -> Credentials? {
        let rows = try await database.query(
            "SELECT id, name, password_hash FROM auth.vault_users WHERE email = \(VaultUserCreate.normalised(email))", logger: logger)
        for try await (id, name, hash) in rows.decode((Int64, String, String).self) {
            return Credentials(id: id, name: name, passwordHash: hash)
        }
        return nil
    }

    func name(id: Int64, logger: Logger) async throws -> String? {
        for try await name in try await database.query("SELECT name FROM auth.vault_users WHERE id = \(id)", logger: logger).decode(String.self) {
            return name
        }
        return nil
    }

    /// `POST /api/password`: the vault re-seals the user's key with the new password first, then the login changes.
    func changePassword(_ request: PasswordChange, context: CallContext) async throws -> PasswordChanged {
        let id = try Self.user(context)
        var stored: (email: String, hash: String)?
        let rows = try await database.query("SELECT email, password_hash FROM auth.vault_users WHERE id = \(id)", logger: context.logger)
        for try await row in rows.decode((String, String).self) { stored = row }
        guard let stored else { throw RPCError.forbidden("Only a user can change their password", reason: "forbidden") }
        // A stolen token must not become a way to guess the password: the login's throttle counts here too.
        let admission = try await throttle.admit(stored.email, logger: context.logger)
        // 403, not 401: the token is fine, and apps log out on a 401.
        let (current, storedHash) = (request.current_password, stored.hash)
        guard try await BlockingWork.run({ Sodium.verifyPassword(current, hash: storedHash) }) else {
            try await throttle.recordFailure(stored.email, admission: admission, logger: context.logger)
            throw RPCError.forbidden("The current password is wrong", reason: "wrong_password")
        }
        try await throttle.clear(stored.email, logger: context.logger)
        let newPassword = request.new_password
        let newHash = try await BlockingWork.run { try Sodium.passwordHash(newPassword) }
        _ = try await services.call(
            VaultMethods.usersReseal,
            input: VaultUserResealInput(userID: id, oldPassword: request.current_password, newPassword: request.new_password),
            context: context)
        do {
            try await database.query("UPDATE auth.vault_users SET password_hash = \(newHash) WHERE id = \(id)", logger: context.logger)
        } catch {
            // Login and vault must keep opening with the same password: put the vault's key back.
            _ = try? await services.call(
                VaultMethods.usersReseal,
                input: VaultUserResealInput(userID: id, oldPassword: request.new_password, newPassword: request.current_password),
                context: context)
            throw error
        }
        return PasswordChanged()
    }

    /// The user whose token the request carries, checked before a body that cannot be read is answered.
    static func user(_ context: CallContext) throws -> Int64 {
        guard let id = context.principal.flatMap({ Int64($0.id) }) else {
            throw RPCError.forbidden("Only a user can change their password", reason: "forbidden")
        }
        return id
    }
}
