import CustodianJWT
import CustodianRPC
import CustodianRuntime
import Foundation
import Logging
import PostgresNIO

/// The ES256 keys access tokens are signed with. The first replica that needs one creates it (under an
/// advisory lock, so replicas agree); retired keys leave the published set.
actor SigningKeys {
    private let database: Database
    private var current: SigningKey?

    init(database: Database) {
        self.database = database
    }

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
        var keys: [SigningKey] = []
        let rows = try await database.query(
            "SELECT kid, private_key_pem FROM auth.signing_keys WHERE retired_at IS NULL ORDER BY created_at", logger: logger)
        for try await (kid, pem) in rows.decode((String, String).self) {
            keys.append(try SigningKey(kid: kid, pem: pem))
        }
        return keys
    }

    private func createFirstKey(logger: Logger) async throws -> SigningKey {
        let candidate = SigningKey.generate()
        let pem = candidate.pem
        let kid = candidate.kid
        return try await database.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext('custodian.auth.signing_keys'))", logger: logger)
            let existing = try await connection.query(
                "SELECT kid, private_key_pem FROM auth.signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1", logger: logger)
            for try await (existingKid, existingPem) in existing.decode((String, String).self) {
                return try SigningKey(kid: existingKid, pem: existingPem)
            }
            try await connection.query(
                "INSERT INTO auth.signing_keys (kid, private_key_pem) VALUES (\(kid), \(pem))", logger: logger)
            return candidate
        }
    }
}
