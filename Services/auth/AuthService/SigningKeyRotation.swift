import CustodianContracts
import CustodianJWT
import CustodianRPC
import CustodianRuntime
import Foundation
import Logging
import PostgresNIO

/// What owners do with the signing keys (`/admin/v1/signing-keys`): list them, rotate, retire. Each change is decided
/// by ``SigningKeySchedule`` on the keys as the database holds them, under the lock every change of the set takes, with
/// the database's clock.
extension SigningKeys {
    func list(logger: Logger) async throws -> SigningKeyList {
        _ = try await signingKey(logger: logger)
        let schedule = try await database.withTransaction(logger: logger) { connection in try await Self.schedule(connection, logger: logger) }
        return SigningKeyList(
            keys: schedule.infos, key_set_max_age: Int(keySetMaxAge.components.seconds), longest_token_lifetime: Int(TokenIssuer.longestLifetime))
    }

    /// Publishes a new key, which signs from ``publicationDelay`` on.
    func rotate(logger: Logger) async throws -> SigningKeyInfo {
        // The first key, if none was made yet: the new one then has one to take over from.
        _ = try await signingKey(logger: logger)
        let candidate = SigningKey.generate()
        let sealed = try seal(candidate)
        let kid = candidate.kid
        let delay = Double(publicationDelay.components.seconds)
        let rotated = try await database.withTransaction(logger: logger) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: Self.lock), logger: logger)
            try await Self.schedule(connection, logger: logger).checkRotation()
            try await connection.query(
                """
                INSERT INTO auth.signing_keys (kid, private_key_sealed, activates_at)
                VALUES (\(kid), \(sealed), now() + make_interval(secs => \(delay)))
                """, logger: logger)
            let schedule = try await Self.schedule(connection, logger: logger)
            guard let entry = schedule.entries.first(where: { $0.kid == kid }) else { throw RPCError.internal("the new signing key was not stored") }
            return schedule.info(entry)
        }
        reload()
        logger.notice("signing key published", metadata: ["kid": .string(kid), "signs_from": .string(rotated.signs_from)])
        return rotated
    }

    /// Takes a key out of the key set: tokens it signed are refused from when each gateway's copy of the set is renewed.
    func retire(_ request: SigningKeyRetirement, logger: Logger) async throws -> SigningKeyInfo {
        let retired = try await database.withTransaction(logger: logger) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: Self.lock), logger: logger)
            let entry = try await Self.schedule(connection, logger: logger).retirement(of: request.kid, force: request.force)
            if entry.retiredAt == nil {
                try await connection.query("UPDATE auth.signing_keys SET retired_at = now() WHERE kid = \(entry.kid)", logger: logger)
            }
            let schedule = try await Self.schedule(connection, logger: logger)
            return schedule.info(schedule.entries.first { $0.kid == entry.kid } ?? entry)
        }
        reload()
        logger.notice("signing key retired", metadata: ["kid": .string(retired.kid), "forced": .stringConvertible(request.force)])
        return retired
    }

    /// Every key's times, and the database's now.
    private static func schedule(_ connection: DatabaseConnection, logger: Logger) async throws -> SigningKeySchedule {
        var now = Date()
        for try await time in try await connection.query("SELECT now()", logger: logger).decode(Date.self) { now = time }
        var entries: [SigningKeySchedule.Entry] = []
        let rows = try await connection.query("SELECT kid, created_at, activates_at, retired_at FROM auth.signing_keys", logger: logger)
        for try await (kid, createdAt, activatesAt, retiredAt) in rows.decode((String, Date, Date, Date?).self) {
            entries.append(SigningKeySchedule.Entry(kid: kid, createdAt: createdAt, activatesAt: activatesAt, retiredAt: retiredAt))
        }
        return SigningKeySchedule(entries, now: now, longestTokenLifetime: TokenIssuer.longestLifetime)
    }
}
