import Foundation

/// The rules every value a client sends obeys, whichever API it came through: decided here once, enforced by
/// the gateway for what it can see (NUL characters anywhere in a request) and by each service's parsers for
/// what only they can read (a time inside a field), each answering in its API's own words.
public enum ClientInput {
    /// Times a client may send: from 1970-01-01 up to 2100-01-01 (UTC). Outside that range a time is a
    /// client's mistake (or an attack: a time beyond PostgreSQL's range traps the process that binds it).
    public static let plausibleTimes: ClosedRange<Date> = Date(timeIntervalSince1970: 0)...Date(timeIntervalSince1970: 4_102_444_800)

    public static func isPlausible(_ time: Date) -> Bool {
        plausibleTimes.contains(time)
    }

    /// Whether seconds since 1970 are a plausible time; checked on the number, before any `Date` arithmetic.
    public static func isPlausible(secondsSince1970 seconds: Double) -> Bool {
        seconds.isFinite && seconds >= plausibleTimes.lowerBound.timeIntervalSince1970
            && seconds <= plausibleTimes.upperBound.timeIntervalSince1970
    }

    /// U+0000 anywhere in a string: PostgreSQL stores no such text, and no API of ours means anything by it.
    public static func containsNUL(_ text: some StringProtocol) -> Bool {
        text.utf8.contains(0)
    }

    /// U+0000 in any string or object key of `value`, however deep.
    public static func containsNUL(_ value: JSONValue) -> Bool {
        switch value {
        case .string(let text): containsNUL(text)
        case .array(let items): items.contains(where: containsNUL)
        case .object(let fields): fields.contains { containsNUL($0.key) || containsNUL($0.value) }
        case .null, .bool, .int, .double: false
        }
    }
}

extension HTTPInput {
    /// Whether a NUL character is anywhere in what the client sent: body, path, query or forwarded headers.
    public var containsNUL: Bool {
        bodyContainsNUL
            || path.contains { ClientInput.containsNUL($0.key) || ClientInput.containsNUL($0.value) }
            || query.contains { ClientInput.containsNUL($0.key) || $0.value.contains(where: ClientInput.containsNUL) }
            || headers.values.contains(where: ClientInput.containsNUL)
    }

    private var bodyContainsNUL: Bool {
        switch bodyForm {
        case .value(let value): ClientInput.containsNUL(value)
        case .checked(let text): text.containsNUL
        }
    }
}
