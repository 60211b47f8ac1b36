import CustodianContracts
import CustodianRPC
import CustodianRuntime
import Logging
import PostgresNIO

/// The vault's part of a user's erasure (docs/erasure.md): the user's key pair, modules (and their sealed secrets),
/// repos, permissions and items. A write under way holds its repo's row (the foreign key's lock), so the repo's
/// deletion waits for it and takes its records too; a write that comes after finds no repo and no key to make one with.
struct UserErasure: Sendable {
    let database: Database

    func erase(_ input: VaultDataErasure, context: CallContext) async throws -> ErasureReceipt {
        let user = input.userID
        let logger = context.logger
        let deleted = try await database.withTransaction(logger: logger) { connection -> [String: Int] in
            // The key first, so that no repo can be made for the user while the rest goes.
            let keys = try await connection.count("DELETE FROM vault.user_keys WHERE user_id = \(user)", logger: logger)
            let items = try await connection.count(
                "DELETE FROM vault.items WHERE repo_id IN (SELECT id FROM vault.repos WHERE user_id = \(user))", logger: logger)
            let permissions = try await connection.count(
                """
                DELETE FROM vault.permissions WHERE repo_id IN (SELECT id FROM vault.repos WHERE user_id = \(user))
                   OR module_id IN (SELECT id FROM vault.modules WHERE user_id = \(user))
                """, logger: logger)
            let repos = try await connection.count("DELETE FROM vault.repos WHERE user_id = \(user)", logger: logger)
            let modules = try await connection.count("DELETE FROM vault.modules WHERE user_id = \(user)", logger: logger)
            return ["user_keys": keys, "items": items, "permissions": permissions, "repos": repos, "modules": modules]
        }
        return ErasureReceipt(target: "vault_user", id: String(user), deleted: deleted, context: context)
    }
}
