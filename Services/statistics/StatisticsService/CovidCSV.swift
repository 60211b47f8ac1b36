import CustodianContracts
import Foundation

/// Public daily case data as the admin imports it: a CSV with the header `country,date,confirmed,deaths,recovered`
/// (docs/admin.md). Every line is checked before anything is stored; the errors name their lines.
public enum CovidCSV {
    public static let header = ["country", "date", "confirmed", "deaths", "recovered"]
    /// At most this many rows in one import (the body limit keeps it well below anyway).
    public static let maximumRows = 250_000
    /// The errors an answer lists; the count says how many there were in all.
    public static let maximumReportedErrors = 20

    public struct Row: Sendable, Equatable {
        public var line: Int
        /// Upper-case alpha2.
        public var country: String
        /// `YYYY-MM-DD`.
        public var day: String
        public var confirmed: Int64
        public var deaths: Int64
        /// nil where the source has no recovered count (an empty field).
        public var recovered: Int64?

        public init(line: Int, country: String, day: String, confirmed: Int64, deaths: Int64, recovered: Int64?) {
            self.line = line
            self.country = country
            self.day = day
            self.confirmed = confirmed
            self.deaths = deaths
            self.recovered = recovered
        }
    }

    public struct LineError: Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }

        public init(line: Int, message: String) {
            self.line = line
            self.message = message
        }
    }

    /// Every bad line of a file, in order.
    public struct Invalid: Error, Sendable, Equatable {
        public var lines: [LineError]
    }

    /// The rows of `text`, or every line's problem. `countries` are the supported alpha2 codes (nil: any
    /// two letters); days may not be before the first recorded case nor after `now`.
    public static func parse(_ text: String, countries: Set<String>?, now: Date = Date()) -> Result<[Row], Invalid> {
        var body = Substring(text)
        if body.hasPrefix("\u{FEFF}") { body = body.dropFirst() }
        let lines = body.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
            .map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
        guard let first = lines.first(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else {
            return .failure(Invalid(lines: [LineError(line: 1, message: "the file is empty: expected the header \(header.joined(separator: ","))")]))
        }
        guard fields(first).map({ $0.lowercased() }) == header else {
            return .failure(Invalid(lines: [LineError(line: 1, message: "the header must be \(header.joined(separator: ","))")]))
        }
        let headerIndex = lines.firstIndex(of: first)!
        var rows: [Row] = []
        var errors: [LineError] = []
        var seen: [String: Int] = [:]
        let latest = now
        for (offset, content) in lines.enumerated().dropFirst(headerIndex + 1) {
            let line = offset + 1
            if content.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            if rows.count + errors.count >= maximumRows {
                errors.append(LineError(line: line, message: "more than \(maximumRows) rows: split the file"))
                break
            }
            let values = fields(content)
            guard values.count == header.count else {
                errors.append(LineError(line: line, message: "expected 5 fields (country,date,confirmed,deaths,recovered), found \(values.count)"))
                continue
            }
            let country = values[0].uppercased()
            guard Alpha2.isValid(values[0]) else {
                errors.append(LineError(line: line, message: "country '\(clip(values[0]))' is not an alpha2 code"))
                continue
            }
            if let countries, !countries.contains(country) {
                errors.append(
                    LineError(line: line, message: "country \(country) is not supported (add it with PUT /admin/v1/statistics/countries/\(country))"))
                continue
            }
            guard let date = LemonDate.day(values[1]) else {
                errors.append(LineError(line: line, message: "date '\(clip(values[1]))' is not a day (YYYY-MM-DD)"))
                continue
            }
            guard date >= LemonDate.firstRecordedCase, date <= latest else {
                errors.append(
                    LineError(line: line, message: "date \(values[1]) is in the future or before the first recorded case of COVID-19 (2019-12-01)"))
                continue
            }
            var counts: [Int64?] = []
            var bad: String?
            for (index, name) in ["confirmed", "deaths", "recovered"].enumerated() {
                let text = values[2 + index]
                if text.isEmpty && name == "recovered" {
                    counts.append(nil)
                } else if let value = Int64(text), value >= 0, value <= 100_000_000_000 {
                    counts.append(value)
                } else {
                    bad = "\(name) '\(clip(text))' is not a whole number from 0 to 100000000000"
                    break
                }
            }
            if let bad {
                errors.append(LineError(line: line, message: bad))
                continue
            }
            let key = country + values[1]
            if let earlier = seen[key] {
                errors.append(LineError(line: line, message: "\(country) on \(values[1]) is already on line \(earlier)"))
                continue
            }
            seen[key] = line
            rows.append(Row(line: line, country: country, day: values[1], confirmed: counts[0]!, deaths: counts[1]!, recovered: counts[2]))
        }
        if !errors.isEmpty { return .failure(Invalid(lines: errors)) }
        return .success(rows)
    }

    /// Comma-separated fields, trimmed; a field may be quoted ("…", with "" for a quote).
    static func fields(_ line: Substring) -> [String] {
        var fields: [String] = []
        var current = ""
        var quoted = false
        var iterator = line.makeIterator()
        var pending: Character? = nil
        while let character = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if character == "\"" {
                    if let next = iterator.next() {
                        if next == "\"" { current.append("\"") } else { quoted = false; pending = next }
                    } else {
                        quoted = false
                    }
                } else {
                    current.append(character)
                }
            } else if character == "\"" && current.trimmingCharacters(in: .whitespaces).isEmpty {
                current = ""
                quoted = true
            } else if character == "," {
                fields.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current.trimmingCharacters(in: .whitespaces))
        return fields
    }

    private static func clip(_ text: String) -> String {
        text.count > 30 ? String(text.prefix(30)) + "…" : text
    }
}
