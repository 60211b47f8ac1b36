import CustodianContracts
import CustodianRPC
import CustodianRuntime
import CustodianSodium
import Foundation
import Logging
import PostgresNIO

/// Each vault user's X25519 key pair. Repo secret keys are sealed to the user's public key; the user's
/// secret key is sealed with a key derived from the password (Argon2id + secretbox), so the server alone
/// cannot decrypt items, and a password change re-seals one key, not every repo's.
struct UserKeys: Sendable {
    let database: Database

    func create(_ input: VaultUserKeysInput, context: CallContext) async throws -> Empty {
        let pair = try Sodium.boxKeyPair()
        let salt = Sodium.randomBytes(Sodium.passwordSaltLength)
        let password = input.password
        let key = try await BlockingWork.run { try Sodium.deriveKey(password: password, salt: salt) }
        let sealed = try Sodium.secretBox(pair.secretKey, key: key)
        try await database.query(
            """
            INSERT INTO vault.user_keys (user_id, public_key, secret_sealed, salt, synthetic)
            VALUES (\(input.userID), \(Data(pair.publicKey)), \(Data(sealed)), \(Data(salt)), \(context.createsSynthetic))
            ON CONFLICT (user_id) DO NOTHING
            """, logger: context.logger)
        return Empty()
    }

    func reseal(_ input: VaultUserResealInput, context: CallContext) async throws -> Empty {
        let pair = try await keyPair(userID: input.userID, password: input.oldPassword, logger: context.logger)
        let salt = Sodium.randomBytes(Sodium.passwordSaltLength)
        let newPassword = input.newPassword
        let key = try await BlockingWork.run { try Sodium.deriveKey(password: newPassword, salt: salt) }
        let sealed = try Sodium.secretBox(pair.secretKey, key: key)
        try await database.query(
            "UPDATE vault.user_keys SET secret_sealed = \(Data(sealed)), salt = \(Data(salt)), updated_at = now() WHERE user_id = \(input.userID)",
            logger: context.logger)
        return Empty()
    }

    func publicKey(userID: Int64, logger: Logger) async throws -> [UInt8] {
        let rows = try await database.query("SELECT public_key FROM vault.user_keys WHERE user_id = \(userID)", logger: logger)
        for try await key in rows.decode(Data.self) { return Array(key) }
        throw RPCError.notFound("The user has no data vault keys", reason: "user_unknown")
    }

    /// The id of a user who has a data vault, as the admin API's path gave it (nil when it was not a number); else a 404.
    func requireUser(_ userID: Int64?, logger: Logger) async throws -> Int64 {
        guard let userID, (try? await publicKey(userID: userID, logger: logger)) != nil else {
            throw RPCError.notFound("No such user", reason: "not_found")
        }
        return userID
    }

    /// The user's key pair, opened with the password; a wrong password is a 403.
    func keyPair(userID: Int64, password: String, logger: Logger) async throws -> Sodium.KeyPair {
        let rows = try await database.query(
            "SELECT public_key, secret_sealed, salt FROM vault.user_keys WHERE user_id = \(userID)", logger: logger)
        for try await (publicKey, sealed, salt) in rows.decode((Data, Data, Data).self) {
            let saltBytes = Array(salt)
            let key = try await BlockingWork.run { try Sodium.deriveKey(password: password, salt: saltBytes) }
            guard let secret = try? Sodium.openSecretBox(Array(sealed), key: key) else {
                throw RPCError.forbidden("The password does not open this data vault", reason: "wrong_password")
            }
            return Sodium.KeyPair(publicKey: Array(publicKey), secretKey: secret)
        }
        throw RPCError.notFound("The user has no data vault keys", reason: "user_unknown")
    }
}
