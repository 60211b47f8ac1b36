import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import PostgresNIO

/// Password guesses for one account (by normalised email), wherever a password is checked: the OAuth login
/// and the password change. Each check is reserved before the password is verified, in one statement under
/// the row's lock, so that at most five checks run per window however many requests arrive at once (across
/// every replica); five that fail lock the email for a quarter of an hour, which ends by itself, so that
/// nobody can lock the owner out for good. A success clears the count.
struct PasswordThrottle: Sendable {
    let database: Database
    /// Rows are found by a keyed digest of the email, not the email: attempts for any address, known or not, leave
    /// no address in the database (docs/erasure.md).
    let sealer: Sealer

    static let digestContext = "auth-login-failures"

    func digest(_ email: String) -> Data { sealer.digest(email, context: Self.digestContext) }

    static let checksPerWindow = 5
    static let windowSeconds = 15 * 60
    static let lockSeconds = 15 * 60

    /// A check that may go ahead: its number in the window, which slows down a failure a little more each time.
    struct Admission: Sendable {
        var attempt: Int
    }

    /// Reserves one password check for `email`, or refuses it with a 429 that says when to come back.
    func admit(_ email: String, logger: Logger) async throws -> Admission {
        let rows = try await database.query(
            """
            INSERT INTO auth.login_failures AS f (email_digest, failures, window_started) VALUES (\(digest(email)), 1, now())
            ON CONFLICT (email_digest) DO UPDATE SET
                failures = CASE WHEN f.locked_until > now() THEN f.failures
                                WHEN f.window_started < now() - \(Self.windowSeconds) * interval '1 second' THEN 1
                                ELSE f.failures + 1 END,
                window_started = CASE WHEN f.locked_until > now() THEN f.window_started
                                      WHEN f.window_started < now() - \(Self.windowSeconds) * interval '1 second' THEN now()
                                      ELSE f.window_started END
            RETURNING failures,
                      coalesce(ceil(extract(epoch FROM f.locked_until - now()))::integer, 0),
                      ceil(extract(epoch FROM f.window_started + \(Self.windowSeconds) * interval '1 second' - now()))::integer
            """, logger: logger)
        var result: (attempt: Int, locked: Int, windowLeft: Int)?
        for try await row in rows.decode((Int, Int, Int).self) { result = row }
        guard let result else { throw RPCError.internal("the password throttle kept no row") }
        if result.locked > 0 { throw Self.refusal(seconds: result.locked) }
        // Checks beyond the window's five are refused even while the five are still being verified.
        if result.attempt > Self.checksPerWindow { throw Self.refusal(seconds: max(result.windowLeft, 1)) }
        return Admission(attempt: result.attempt)
    }

    /// Counts the admitted check as failed: the fifth in a window locks the email. Waits a little longer with each one.
    func recordFailure(_ email: String, admission: Admission, logger: Logger) async throws {
        try await database.query(
            """
            UPDATE auth.login_failures
            SET locked_until = now() + \(Self.lockSeconds) * interval '1 second', failures = 0, window_started = now()
            WHERE email_digest = \(digest(email)) AND failures >= \(Self.checksPerWindow) AND (locked_until IS NULL OR locked_until <= now())
            """, logger: logger)
        // Rows of long-quiet emails go, so that guessing emails does not grow the table for ever.
        try await database.query(
            "DELETE FROM auth.login_failures WHERE window_started < now() - interval '1 day' AND (locked_until IS NULL OR locked_until < now())",
            logger: logger)
        try? await Task.sleep(for: .milliseconds(200 * min(admission.attempt, Self.checksPerWindow)))
    }

    func clear(_ email: String, logger: Logger) async throws {
        try await database.query("DELETE FROM auth.login_failures WHERE email_digest = \(digest(email))", logger: logger)
    }

    static func refusal(seconds: Int) -> RPCError {
        let minutes = (seconds + 59) / 60
        return RPCError.tooManyRequests(
            "Too many failed logins; try again in \(minutes) minute\(minutes == 1 ? "" : "s")", reason: "slow_down", retryAfter: seconds)
    }
}
