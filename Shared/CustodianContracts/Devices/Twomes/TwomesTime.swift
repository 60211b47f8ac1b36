import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation

/// Times as the Twomes backend (pydantic v1) reads and writes them. In: unix seconds as a number or a
/// numeric string (milliseconds too, told apart by size), or ISO 8601 with an offset; a naive ISO time
/// is refused, since the device's clock zone is unknown. Out: ISO 8601 in UTC, `2021-06-06T14:51:08+00:00`.
public enum TwomesTime {
    /// `requirePlausible`: whether the time must lie in ``ClientInput/plausibleTimes`` — yes for every time that is
    /// stored; a query's bound (`to=9999-12-31T00:00:00Z`) only selects.
    ///
    /// `location` is where the value was, for the error; made only when there is one (every sample of an upload has a time).
    public static func parse(_ value: JSONValue, at location: @autoclosure () -> [String], requirePlausible: Bool = true) throws -> Date {
        let time: Date
        switch value {
        case .int(let seconds):
            time = try fromUnix(Double(seconds), at: location)
        case .double(let seconds):
            time = try fromUnix(seconds, at: location)
        case .string(let text):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if let seconds = Double(trimmed), trimmed.allSatisfy({ $0.isNumber || $0 == "." || $0 == "-" }) {
                time = try fromUnix(seconds, at: location)
            } else {
                time = try parseISO(trimmed, at: location)
            }
        default:
            throw RPCError.validation(location: location(), message: "invalid datetime format", type: "value_error.datetime")
        }
        return requirePlausible ? try plausible(time, at: location()) : time
    }

    /// A time inside ``ClientInput/plausibleTimes``, or the 422 that says so.
    public static func plausible(_ time: Date, at location: @autoclosure () -> [String]) throws -> Date {
        guard ClientInput.isPlausible(time) else { throw outOfRange(at: location()) }
        return time
    }

    public static func outOfRange(at location: [String]) -> RPCError {
        RPCError.validation(location: location, message: "datetime must be between 1970-01-01 and 2100-01-01", type: "value_error.datetime.range")
    }

    /// pydantic's rule: a number above 2e10 is taken to be in milliseconds. A number too large to be a time in
    /// any unit (a string of 400 digits reads as infinity) is refused before it is scaled.
    private static func fromUnix(_ value: Double, at location: () -> [String]) throws -> Date {
        guard value.isFinite, abs(value) < 1e300 else { throw outOfRange(at: location()) }
        var seconds = value
        while abs(seconds) > 2e10 { seconds /= 1000 }
        return Date(timeIntervalSince1970: seconds)
    }

    private static func parseISO(_ text: String, at location: () -> [String]) throws -> Date {
        // YYYY-MM-DD[T ]HH:MM[:SS[.ffffff]][Z|±HH[:]MM|±HH]
        let pattern = #"^(\d{4})-(\d{1,2})-(\d{1,2})[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,6})\d*)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$"#
        guard let match = text.range(of: pattern, options: .regularExpression), match == text.startIndex..<text.endIndex,
            let regex = try? NSRegularExpression(pattern: pattern),
            let result = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
        else {
            throw RPCError.validation(location: location(), message: "invalid datetime format", type: "value_error.datetime")
        }
        func group(_ index: Int) -> String? {
            let range = result.range(at: index)
            guard range.location != NSNotFound, let swiftRange = Range(range, in: text) else { return nil }
            return String(text[swiftRange])
        }
        guard let zone = group(8) else {
            throw RPCError.validation(location: location(), message: "datetime without timezone", type: "value_error")
        }
        var offsetSeconds = 0
        if zone != "Z" {
            let sign = zone.hasPrefix("-") ? -1 : 1
            let digits = zone.dropFirst().replacingOccurrences(of: ":", with: "")
            let hours = Int(digits.prefix(2)) ?? 0
            let minutes = digits.count > 2 ? Int(digits.suffix(2)) ?? 0 : 0
            // Python's rule for an offset: less than a day (`+19:00` is valid there, though no zone uses it).
            guard hours < 24, minutes < 60 else {
                throw RPCError.validation(location: location(), message: "invalid datetime format", type: "value_error.datetime")
            }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        }
        var components = DateComponents()
        components.year = Int(group(1)!)
        components.month = Int(group(2)!)
        components.day = Int(group(3)!)
        components.hour = Int(group(4)!)
        components.minute = Int(group(5)!)
        components.second = group(6).flatMap(Int.init) ?? 0
        // Read as UTC, then moved by the offset: Foundation has no zone beyond ±18 h.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else {
            throw RPCError.validation(location: location(), message: "invalid datetime format", type: "value_error.datetime")
        }
        let fraction = group(7).map { Double("0." + $0) ?? 0 } ?? 0
        return date.addingTimeInterval(fraction - Double(offsetSeconds))
    }

    /// Whole seconds in UTC, as the backend's database gave them back. Computed (days from the civil calendar,
    /// Howard Hinnant's algorithm) rather than through `Calendar`: every upload's answer carries one.
    public static func render(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secondOfDay = seconds - days * 86400
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : String(value) }
        let yearText = String(year)
        return String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText + "-" + two(month) + "-" + two(day)
            + "T" + two(secondOfDay / 3600) + ":" + two(secondOfDay % 3600 / 60) + ":" + two(secondOfDay % 60) + "+00:00"
    }

    /// The longest interval between two fixed-interval measurements: a month.
    public static let maximumInterval: TimeInterval = 31 * 86400

    /// An interval: seconds as a number or numeric string, `[HH:]MM:SS`, or ISO 8601 `PT5M`; at most
    /// ``maximumInterval`` (0 only makes sense for a single measurement, which the caller checks).
    public static func parseInterval(_ value: JSONValue, at location: [String]) throws -> TimeInterval {
        let invalid = RPCError.validation(location: location, message: "invalid duration format", type: "value_error.duration")
        let seconds: Double
        switch value {
        case .int(let number): seconds = Double(number)
        case .double(let number): seconds = number
        case .string(let text):
            if let number = Double(text) {
                seconds = number
            } else if text.contains(":") {
                let parts = text.split(separator: ":").map { Double($0) }
                guard parts.count >= 2, parts.count <= 3, parts.allSatisfy({ $0 != nil }) else { throw invalid }
                seconds = parts.reduce(0) { $0 * 60 + $1! }
            } else if let iso = isoDuration(text) {
                seconds = iso
            } else {
                throw invalid
            }
        default: throw invalid
        }
        guard seconds.isFinite, seconds >= 0 else { throw invalid }
        guard seconds <= maximumInterval else {
            throw RPCError.validation(location: location, message: "interval must be at most 31 days", type: "value_error.duration.range")
        }
        return seconds
    }

    private static func isoDuration(_ text: String) -> Double? {
        let pattern = #"^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$"#
        guard text != "P", text != "PT", let regex = try? NSRegularExpression(pattern: pattern),
            let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
        else { return nil }
        let scales: [Double] = [86400, 3600, 60, 1]
        var total = 0.0
        for (index, scale) in scales.enumerated() {
            let range = match.range(at: index + 1)
            if range.location != NSNotFound, let swiftRange = Range(range, in: text), let number = Double(text[swiftRange]) {
                total += number * scale
            }
        }
        return total
    }
}
