import CustodianContracts
import CustodianRPC
import CustodianRuntime
import Logging

/// `DELETE /admin/v1/vault/users/{user_id}` (docs/erasure.md): the vault's data first, then the login (email, name,
/// password hash and its failed-login counts). With the vault down nothing is deleted; a retry finishes a half-done
/// one. Access tokens already issued stay valid until they expire (2 h), but reach nothing: every repo and the key to
/// make one with are gone.
struct VaultUserEraser: Sendable {
    let database: Database
    let services: RPCClient
    let throttle: PasswordThrottle

    func erase(_ input: VaultUserErasure, context: CallContext) async throws -> ErasureReceipt {
        guard let user = input.userID else {
            return ErasureReceipt(target: "vault_user", id: "-", deleted: ["users": 0], context: context)
        }
        var receipt = try await services.call(VaultMethods.usersErase, input: VaultDataErasure(userID: user), context: context)
        let logger = context.logger
        let login = try await database.withTransaction(logger: logger) { connection -> (users: Int, failures: Int) in
            var email: String?
            for try await address in try await connection.query(
                "DELETE FROM auth.vault_users WHERE id = \(user) RETURNING email", logger: logger
            ).decode(String.self) { email = address }
            guard let email else { return (0, 0) }
            let failures = try await connection.count(
                "DELETE FROM auth.login_failures WHERE email_digest = \(throttle.digest(email))", logger: logger)
            return (1, failures)
        }
        receipt.deleted["users"] = login.users
        receipt.deleted["login_failures"] = login.failures
        logger.notice("vault user erased", metadata: ["user_id": .stringConvertible(user), "admin": .string(context.principal?.id ?? "-")])
        return receipt
    }
}
