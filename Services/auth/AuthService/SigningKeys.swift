import CustodianContracts
import CustodianJWT
import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import PostgresNIO

/// The ES256 keys access tokens are signed with. The first replica that needs one creates it (under an
/// advisory lock, so replicas agree); retired keys leave the published set. Private keys are stored sealed with
/// the deployment's sealing key, so that a database dump alone mints no token; a key stored in the clear by an
/// earlier version is sealed the first time it is read.
actor SigningKeys {
    private let database: Database
    private let sealer: Sealer
    private var current: SigningKey?

    init(database: Database, sealer: Sealer) {
        self.database = database
        self.sealer = sealer
    }

    static let sealed = SealedColumn(table: "auth.signing_keys", column: "private_key_sealed", key: "kid", contextPrefix: "auth-signing-key:")

    static func sealingContext(_ kid: String) -> String { sealed.context(kid) }

    func signingKey(logger: Logger) async throws -> SigningKey {
        if let current { return current }
        let keys = try await activeKeys(logger: logger)
        if let newest = keys.last {
            current = newest
            return newest
        }
        let created = try await createFirstKey(logger: logger)
        current = created
        return created
    }

    func publicKeySet(logger: Logger) async throws -> PublicKeySet {
        var keys = try await activeKeys(logger: logger)
        if keys.isEmpty { keys = [try await signingKey(logger: logger)] }
        return PublicKeySet(keys: keys.compactMap(\.publicJWK))
    }

    private func activeKeys(logger: Logger) async throws -> [SigningKey] {
        try await sealPlaintextKeys(logger: logger)
        var keys: [SigningKey] = []
        let rows = try await database.query(
            "SELECT kid, private_key_sealed FROM auth.signing_keys WHERE retired_at IS NULL AND private_key_sealed IS NOT NULL ORDER BY created_at",
            logger: logger)
        for try await (kid, sealed) in rows.decode((String, Data).self) {
            keys.append(try open(kid: kid, sealed: sealed))
        }
        return keys
    }

    private func open(kid: String, sealed: Data) throws -> SigningKey {
        try SigningKey(kid: kid, pem: sealer.open(sealed, context: Self.sealingContext(kid)))
    }

    /// Seals keys an earlier version stored as plaintext PEM, retired ones included.
    private func sealPlaintextKeys(logger: Logger) async throws {
        let rows = try await database.query(
            "SELECT kid, private_key_pem FROM auth.signing_keys WHERE private_key_pem IS NOT NULL", logger: logger)
        for try await (kid, pem) in rows.decode((String, String).self) {
            let sealed = try sealer.seal(pem, context: Self.sealingContext(kid))
            try await database.query(
                "UPDATE auth.signing_keys SET private_key_sealed = \(sealed), private_key_pem = NULL WHERE kid = \(kid) AND private_key_pem IS NOT NULL",
                logger: logger)
            logger.notice("sealed a signing key stored in the clear", metadata: ["kid": .string(kid)])
        }
    }

    private func createFirstKey(logger: Logger) async throws -> SigningKey {
        let candidate = SigningKey.generate()
        let sealed = try sealer.seal(candidate.pem, context: Self.sealingContext(candidate.kid))
        let kid = candidate.kid
        return try await database.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext('custodian.auth.signing_keys'))", logger: logger)
            let existing = try await connection.query(
                "SELECT kid, private_key_sealed FROM auth.signing_keys WHERE retired_at IS NULL AND private_key_sealed IS NOT NULL ORDER BY created_at DESC LIMIT 1",
                logger: logger)
            for try await (existingKid, existingSealed) in existing.decode((String, Data).self) {
                return try open(kid: existingKid, sealed: existingSealed)
            }
            try await connection.query(
                "INSERT INTO auth.signing_keys (kid, private_key_sealed) VALUES (\(kid), \(sealed))", logger: logger)
            return candidate
        }
    }
}
