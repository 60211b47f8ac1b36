/// The time in a list's page cursor (`next_after`, `next_before`): microseconds since 1970, as PostgreSQL keeps a
/// `timestamptz`, read back from a client that may send anything.
public enum PageCursor {
    /// 9999-12-31T23:59:59.999999Z: later than any row's time, and far from where PostgreSQL's interval arithmetic
    /// overflows (2^63 − 1 is `interval out of range`, which would reach the client as the database's unspecific
    /// `unstorable_value` rather than as the parameter that was wrong).
    public static let latestMicros: Int64 = 253_402_300_799_999_999

    /// The microseconds `text` spells, nil unless they are from 0 to ``latestMicros``.
    public static func micros(_ text: Substring) -> Int64? {
        guard let micros = Int64(text), (0...latestMicros).contains(micros) else { return nil }
        return micros
    }
}
