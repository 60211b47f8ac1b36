import CustodianContracts
import CustodianJSON
import CustodianRPC
import Foundation
import Testing

/// Times and intervals as devices send them: every form the backend reads, and nothing that could not be a time
/// (outside 1970–2100, or a number too large for any unit) gets past the parser.
@Suite("Twomes times and intervals: bounds")
struct TwomesTimeBoundsTests {
    let at = ["body", "upload_time"]

    func reason(_ value: JSONValue) -> String? {
        do {
            _ = try TwomesTime.parse(value, at: at)
            return nil
        } catch let error as RPCError {
            return error.details.flatMap { if case .array(let items) = $0 { items.first?["msg"]?.stringValue } else { nil } }
        } catch {
            return "\(error)"
        }
    }

    @Test func plausibleTimesInEveryForm() throws {
        #expect(try TwomesTime.parse(.int(1_622_991_068), at: at) == Date(timeIntervalSince1970: 1_622_991_068))
        #expect(try TwomesTime.parse(.int(1_622_991_068_000), at: at) == Date(timeIntervalSince1970: 1_622_991_068), "milliseconds")
        #expect(try TwomesTime.parse(.string("2021-06-06T14:51:08+00:00"), at: at) == Date(timeIntervalSince1970: 1_622_991_068))
        #expect(try TwomesTime.parse(.int(0), at: at) == Date(timeIntervalSince1970: 0))
        #expect(try TwomesTime.parse(.string("2099-12-31T23:59:59Z"), at: at) < ClientInput.plausibleTimes.upperBound)
    }

    @Test func timesNoOneLivesInAreRefused() {
        let outside = "datetime must be between 1970-01-01 and 2100-01-01"
        for value: JSONValue in [
            .double(1e300), .double(-1e300), .int(Int64.max), .int(-1), .string(String(repeating: "9", count: 400)),
            .string("2100-01-01T00:00:01Z"), .string("1969-12-31T23:59:59Z"), .string("9999-12-31T00:00:00Z"), .double(-62_135_596_800),
        ] {
            #expect(reason(value) == outside, "\(value)")
        }
        #expect(reason(.string("99999-01-01T00:00:00Z")) == "invalid datetime format")
    }

    /// Foundation has no zone beyond ±18 h; an offset Python accepts (under a day) is read all the same, and one
    /// that is not an offset at all is a 422, not a trap.
    @Test func offsetsUpToADayAndNoFurther() throws {
        #expect(try TwomesTime.parse(.string("2021-06-06T14:51:08+19:00"), at: at) == Date(timeIntervalSince1970: 1_622_991_068 - 19 * 3600))
        #expect(
            try TwomesTime.parse(.string("2021-06-06T14:51:08-23:59"), at: at) == Date(timeIntervalSince1970: 1_622_991_068 + 23 * 3600 + 59 * 60))
        for text in ["2021-06-06T14:51:08+24:00", "2021-06-06T14:51:08-99:99", "2021-06-06T14:51:08+18:60"] {
            #expect(reason(.string(text)) == "invalid datetime format", "\(text)")
        }
    }

    /// The civil-calendar arithmetic agrees with Foundation's calendar, second by second across leap years.
    @Test func renderedAsTheCalendarWouldRenderIt() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        var generator = SystemRandomNumberGenerator()
        let samples =
            [0, 1, 59, 86399, 86400, 951_782_400, 951_868_799, 4_102_444_799, 1_622_991_068]
            + (0..<2000).map { _ in Int.random(in: 0...4_102_444_800, using: &generator) }
        for seconds in samples {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds) + 0.75)
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            let expected = String(format: "%04d-%02d-%02dT%02d:%02d:%02d+00:00", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
            #expect(TwomesTime.render(date) == expected, "\(seconds)")
        }
    }

    @Test func intervalsAreBounded() throws {
        let location = ["body", "property_measurements", "0", "interval"]
        #expect(try TwomesTime.parseInterval(.string("00:10:00"), at: location) == 600)
        #expect(try TwomesTime.parseInterval(.string("P31D"), at: location) == 31 * 86400)
        #expect(try TwomesTime.parseInterval(.int(0), at: location) == 0)
        for value: JSONValue in [.double(9.223372036854775808e18), .double(1e308), .string("P32D"), .string("P99999999999D"), .int(Int64.max)] {
            #expect(throws: RPCError.self, "\(value)") { try TwomesTime.parseInterval(value, at: location) }
        }
        #expect(throws: RPCError.self) { try TwomesTime.parseInterval(.int(-5), at: location) }
    }
}
