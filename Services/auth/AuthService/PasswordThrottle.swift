import CustodianRuntime
import Logging
import PostgresNIO

/// Password guesses for one account (by normalised email), wherever a password is checked: the OAuth login
/// and the password change. Failures are slowed down and, after five in a quarter of an hour, refused for a
/// quarter of an hour, which ends by itself, so that nobody can lock the owner out for good.
struct PasswordThrottle: Sendable {
    let database: Database

    static let failuresBeforeLock = 5
    static let lockSeconds = 15 * 60

    /// The message for a locked account, or nil.
    func refusal(_ email: String, logger: Logger) async throws -> String? {
        guard let lockedFor = try await lockedSeconds(email, logger: logger) else { return nil }
        let minutes = (lockedFor + 59) / 60
        return "Too many failed logins; try again in \(minutes) minute\(minutes == 1 ? "" : "s")"
    }

    /// Counts a failure and waits a little longer with each one.
    func recordFailure(_ email: String, logger: Logger) async throws {
        let failures = try await count(email, logger: logger)
        try? await Task.sleep(for: .milliseconds(200 * min(failures, 5)))
    }

    func clear(_ email: String, logger: Logger) async throws {
        try await database.query("DELETE FROM auth.login_failures WHERE email = \(email)", logger: logger)
    }

    /// Seconds the email is still locked for, if it is.
    private func lockedSeconds(_ email: String, logger: Logger) async throws -> Int? {
        let rows = try await database.query(
            "SELECT ceil(extract(epoch FROM locked_until - now()))::integer FROM auth.login_failures WHERE email = \(email) AND locked_until > now()",
            logger: logger)
        for try await seconds in rows.decode(Int.self) { return seconds }
        return nil
    }

    /// Counts a failure in the current window and locks the email at the limit; returns the count.
    private func count(_ email: String, logger: Logger) async throws -> Int {
        let rows = try await database.query(
            """
            INSERT INTO auth.login_failures (email, failures, window_started) VALUES (\(email), 1, now())
            ON CONFLICT (email) DO UPDATE SET
                failures = CASE WHEN auth.login_failures.window_started < now() - interval '15 minutes' THEN 1 ELSE auth.login_failures.failures + 1 END,
                window_started = CASE WHEN auth.login_failures.window_started < now() - interval '15 minutes' THEN now() ELSE auth.login_failures.window_started END
            RETURNING failures
            """, logger: logger)
        var failures = 1
        for try await count in rows.decode(Int.self) { failures = count }
        // Rows of long-quiet emails go, so that guessing emails does not grow the table for ever.
        try await database.query(
            "DELETE FROM auth.login_failures WHERE window_started < now() - interval '1 day' AND (locked_until IS NULL OR locked_until < now())",
            logger: logger)
        if failures >= Self.failuresBeforeLock {
            try await database.query(
                "UPDATE auth.login_failures SET locked_until = now() + \(Self.lockSeconds) * interval '1 second', failures = 0, window_started = now() WHERE email = \(email)",
                logger: logger)
        }
        return failures
    }
}
