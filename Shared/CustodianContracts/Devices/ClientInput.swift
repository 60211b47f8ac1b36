import Foundation

/// The times a client may send, in either API this service answers (Twomes and OpenSense), checked by each parser
/// that reads a time, each answering in its API's own words. (Text holding U+0000 the gateway refuses for every
/// service: `HTTPInput.containsNUL`.)
public enum ClientInput {
    /// Times a client may send: from 1970-01-01 up to 2100-01-01 (UTC). Outside that range a time is a
    /// client's mistake (or an attack: a time beyond PostgreSQL's range traps the process that binds it).
    public static let plausibleTimes: ClosedRange<Date> = Date(timeIntervalSince1970: 0)...Date(timeIntervalSince1970: 4_102_444_800)

    public static func isPlausible(_ time: Date) -> Bool {
        plausibleTimes.contains(time)
    }
}
