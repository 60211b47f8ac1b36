import CustodianHTTP

/// `?days=N` of the researchers' per-day pages (a participant's, a Twomes device's, an OpenSense device's): the last N UTC days, today
/// included. The service answers the `from` and `to` days it counted, by its database's clock.
public enum RecentDays {
    public static let defaultCount = 30
    /// A year, leap day included.
    public static let counts: ClosedRange<Int64> = 1...366

    /// The one value of `days`: 30 when absent, a 400 outside 1…366 (or repeated).
    public static func count(_ request: RequestReader) throws -> Int {
        Int(try request.integerQuery("days", default: Int64(defaultCount), in: counts))
    }
}
