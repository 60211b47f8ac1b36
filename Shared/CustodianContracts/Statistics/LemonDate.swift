import Foundation

/// The dates the LEMON app sends and the ones it reads back (docs/lemon.md).
///
/// The app writes .NET's invariant culture, `2020-03-29 13:00:09.1359267` (no zone, up to seven digits of
/// fraction); ISO 8601 (`2020-03-29T13:00:09Z`, `2020-03-29T15:00:09.5+02:00`) and a bare day (`2020-03-29`)
/// are read too. A time without a zone is UTC. Fractions are kept to the microsecond, as PostgreSQL stores them.
public enum LemonDate {
    /// The longest text read as a date; anything longer is not one.
    public static let maximumLength = 40

    /// The first recorded case of COVID-19 (Wuhan, December 2019): no test can be older.
    public static let firstRecordedCase = Date(timeIntervalSince1970: 1_575_158_400)  // 2019-12-01T00:00:00Z

    /// How far ahead of the server's clock a time may be: a phone's local time written without its zone is
    /// up to 14 hours (UTC+14) ahead of UTC.
    public static let futureTolerance: TimeInterval = 14 * 3600

    public static func parse(_ text: String) -> Date? {
        guard text.utf8.count <= maximumLength else { return nil }
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.digits(exactly: 4), scanner.take(UInt8(ascii: "-")),
            let month = scanner.digits(exactly: 2), scanner.take(UInt8(ascii: "-")),
            let day = scanner.digits(exactly: 2)
        else { return nil }
        var hour = 0, minute = 0, second = 0
        var microseconds = 0
        var offsetSeconds = 0
        if !scanner.atEnd {
            guard scanner.take(UInt8(ascii: "T")) || scanner.take(UInt8(ascii: "t")) || scanner.take(UInt8(ascii: " ")),
                let h = scanner.digits(exactly: 2), scanner.take(UInt8(ascii: ":")), let m = scanner.digits(exactly: 2)
            else { return nil }
            hour = h
            minute = m
            if scanner.take(UInt8(ascii: ":")) {
                guard let s = scanner.digits(exactly: 2) else { return nil }
                second = s
                if scanner.take(UInt8(ascii: ".")) || scanner.take(UInt8(ascii: ",")) {
                    let fraction = scanner.digitRun()
                    guard (1...9).contains(fraction.count) else { return nil }
                    // Rounded to the microsecond from the first seven digits, as PostgreSQL rounds.
                    let padded = (fraction + Array(repeating: UInt8(ascii: "0"), count: 7)).prefix(7)
                    microseconds = (padded.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) } + 5) / 10
                }
            }
            if scanner.take(UInt8(ascii: "Z")) || scanner.take(UInt8(ascii: "z")) {
                offsetSeconds = 0
            } else if let sign = scanner.takeSign() {
                guard let oh = scanner.digits(exactly: 2), oh <= 14 else { return nil }
                _ = scanner.take(UInt8(ascii: ":"))
                let om = scanner.atEnd ? 0 : (scanner.digits(exactly: 2) ?? -1)
                guard (0..<60).contains(om) else { return nil }
                offsetSeconds = sign * (oh * 3600 + om * 60)
            }
            guard scanner.atEnd else { return nil }
        }
        guard (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard let whole = calendar.date(from: components),
            calendar.component(.day, from: whole) == day, calendar.component(.month, from: whole) == month
        else { return nil }
        return whole.addingTimeInterval(Double(microseconds) / 1_000_000 - Double(offsetSeconds))
    }

    /// Whether a test could have taken place at `date`: not before the first case, not in the future.
    public static func isPlausibleTestDate(_ date: Date, now: Date = Date()) -> Bool {
        date >= firstRecordedCase && date <= now.addingTimeInterval(futureTolerance)
    }

    /// A day as `YYYY-MM-DD` when it is one (the CSV imports' dates).
    public static func day(_ text: String) -> Date? {
        guard text.utf8.count == 10 else { return nil }
        return parse(text)
    }

    /// UTC, the app's invariant-culture layout with `T` and microseconds, no zone: `2020-04-18T01:00:08.545734`.
    public static func format(_ date: Date, fraction: Bool = true) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let seconds = date.timeIntervalSince1970
        let whole = seconds.rounded(.down)
        let micros = Int(((seconds - whole) * 1_000_000).rounded())
        let base = Date(timeIntervalSince1970: whole + (micros == 1_000_000 ? 1 : 0))
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: base)
        let text = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
        return fraction ? text + String(format: ".%06d", micros == 1_000_000 ? 0 : micros) : text
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func takeSign() -> Int? {
            if take(UInt8(ascii: "+")) { return 1 }
            if take(UInt8(ascii: "-")) { return -1 }
            return nil
        }

        mutating func digits(exactly count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }

        mutating func digitRun() -> [UInt8] {
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return Array(bytes[start..<index])
        }
    }
}
