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
///
/// Rotation (``SigningKeySchedule``): a new key is published at once and signs from twice the key set's max age later.
/// Gateways keep a copy of the key set for at most that max age, and so does each replica here of the keys it signs
/// with, so by the time the new key signs every gateway accepts it and every replica switches to it.
actor SigningKeys {
    let database: Database
    private let sealer: Sealer
    /// How long a copy of the key set may be kept, here and (told with the set) in every gateway.
    let keySetMaxAge: Duration
    private var loaded: (keys: [ScheduledKey], at: ContinuousClock.Instant)?

    struct ScheduledKey: Sendable {
        var key: SigningKey
        var activatesAt: Date
    }

    init(database: Database, sealer: Sealer, keySetMaxAge: Duration) {
        self.database = database
        self.sealer = sealer
        self.keySetMaxAge = keySetMaxAge
    }

    /// A new key signs this long after it is published: one max age for every copy of the key set to be renewed,
    /// one more for slow fetches and clocks that differ.
    var publicationDelay: Duration { keySetMaxAge * 2 }

    static let sealed = SealedColumn(table: "auth.signing_keys", column: "private_key_sealed", key: "kid", contextPrefix: "auth-signing-key:")

    static func sealingContext(_ kid: String) -> String { sealed.context(kid) }

    func signingKey(logger: Logger) async throws -> SigningKey {
        let keys = try await scheduledKeys(logger: logger)
        let now = Date()
        if let newest = keys.last(where: { $0.activatesAt <= now }) { return newest.key }
        let created = try await createFirstKey(logger: logger)
        loaded = nil
        return created
    }

    func publicKeySet(logger: Logger) async throws -> PublicKeySet {
        var keys = try await activeKeys(logger: logger).map(\.key)
        if keys.isEmpty { keys = [try await signingKey(logger: logger)] }
        return PublicKeySet(keys: keys.compactMap(\.publicJWK), maxAgeSeconds: Int(keySetMaxAge.components.seconds))
    }

    /// Forgets the keys read, so that the next token is signed with the key the database says signs now.
    func reload() { loaded = nil }

    /// The keys this replica signs with, read again once its copy is older than the key set's max age.
    private func scheduledKeys(logger: Logger) async throws -> [ScheduledKey] {
        if let loaded, ContinuousClock.now - loaded.at < keySetMaxAge { return loaded.keys }
        let keys = try await activeKeys(logger: logger)
        loaded = (keys, ContinuousClock.now)
        return keys
    }

    /// Every key that is not retired, published ones included, by activation.
    private func activeKeys(logger: Logger) async throws -> [ScheduledKey] {
        try await sealPlaintextKeys(logger: logger)
        var keys: [ScheduledKey] = []
        let rows = try await database.query(
            """
            SELECT kid, private_key_sealed, activates_at FROM auth.signing_keys
            WHERE retired_at IS NULL AND private_key_sealed IS NOT NULL ORDER BY activates_at, created_at
            """,
            logger: logger)
        for try await (kid, sealed, activatesAt) in rows.decode((String, Data, Date).self) {
            keys.append(ScheduledKey(key: try open(kid: kid, sealed: sealed), activatesAt: activatesAt))
        }
        return keys
    }

    /// A key's `private_key_sealed`.
    func seal(_ key: SigningKey) throws -> Data {
        try sealer.seal(key.pem, context: Self.sealingContext(key.kid))
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

    /// Taken by every change to the set of keys, so that replicas agree on it.
    static let lock = "SELECT pg_advisory_xact_lock(hashtext('custodian.auth.signing_keys'))"

    private func createFirstKey(logger: Logger) async throws -> SigningKey {
        let candidate = SigningKey.generate()
        let sealed = try seal(candidate)
        let kid = candidate.kid
        return try await database.withTransaction(logger: logger) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: Self.lock), logger: logger)
            let existing = try await connection.query(
                """
                SELECT kid, private_key_sealed FROM auth.signing_keys
                WHERE retired_at IS NULL AND private_key_sealed IS NOT NULL AND activates_at <= now()
                ORDER BY activates_at DESC, created_at DESC LIMIT 1
                """,
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
