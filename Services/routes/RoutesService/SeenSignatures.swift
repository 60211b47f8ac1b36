import CustodianRuntime
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Signatures accepted within the timestamp window, in PostgreSQL so that every replica refuses a replay.
/// A signature is kept until its timestamp leaves the window; after that the timestamp check refuses it anyway.
final class SeenSignatures: Sendable {
    let database: Database
    /// When this replica last deleted expired rows; once a minute is plenty, and keeps the table small.
    private let lastPrune = Mutex<ContinuousClock.Instant?>(nil)

    init(database: Database) {
        self.database = database
    }

    /// Records `signature`; false when it was recorded before, which makes this request a replay.
    func remember(_ signature: Data, until expiry: Date, logger: Logger) async throws -> Bool {
        try await pruneIfDue(logger: logger)
        let rows = try await database.query(
            """
            INSERT INTO routes.seen_signatures (signature, expires_at) VALUES (\(signature), \(expiry))
            ON CONFLICT (signature) DO NOTHING RETURNING 1
            """, logger: logger)
        for try await _ in rows { return true }
        return false
    }

    private func pruneIfDue(logger: Logger) async throws {
        let now = ContinuousClock.now
        let due = lastPrune.withLock { last in
            guard last.map({ now - $0 >= .seconds(60) }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        // A margin for replicas whose clocks run behind the database's: they still accept such timestamps.
        try await database.query("DELETE FROM routes.seen_signatures WHERE expires_at < now() - interval '5 minutes'", logger: logger)
    }
}
