import Testing
@testable import GeotagTool

@Suite("GPS rationals")
struct GPSRationalTests {
    static func values(_ rationals: [GPSRational.Rational]) -> [UInt32] {
        rationals.flatMap { [$0.numerator, $0.denominator] }
    }

    @Test func degreesMinutesSeconds() {
        // 52.0907° = 52° 5′ 26.52″
        #expect(Self.values(GPSRational.degreesMinutesSeconds(52.0907)) == [52, 1, 5, 1, 265_200, 10_000])
        // The sign lives in the reference tag: −5.1214° is 5° 7′ 17.04″ W.
        #expect(Self.values(GPSRational.degreesMinutesSeconds(-5.1214)) == [5, 1, 7, 1, 170_400, 10_000])
        #expect(Self.values(GPSRational.degreesMinutesSeconds(0)) == [0, 1, 0, 1, 0, 10_000])
        #expect(Self.values(GPSRational.degreesMinutesSeconds(180)) == [180, 1, 0, 1, 0, 10_000])
        #expect(Self.values(GPSRational.degreesMinutesSeconds(-90)) == [90, 1, 0, 1, 0, 10_000])
        // 59.99999″ rounds up into the next minute and degree, never to 60″.
        #expect(Self.values(GPSRational.degreesMinutesSeconds(12 + 59.0 / 60 + 59.999_99 / 3600)) == [13, 1, 0, 1, 0, 10_000])
    }

    @Test func readingBackIsWithinAMillimetre() {
        for degrees in [52.090_712_345, -5.121_499_99, 0.000_001, 179.999_999_9, -89.123_456_7] {
            let parts = GPSRational.degreesMinutesSeconds(degrees).map { Double($0.numerator) / Double($0.denominator) }
            let back = GPSRational.degrees(parts)!
            // 1e-4″ is 3 mm of latitude: half of it is the worst rounding.
            #expect(abs(back - abs(degrees)) * 3600 <= 0.000_05 + 1e-12, "\(degrees)")
        }
    }

    @Test func altitudeInCentimetres() {
        #expect(GPSRational.altitude(4.567) == (457, 100))
        #expect(GPSRational.altitude(-12.3) == (1230, 100))
        #expect(GPSRational.altitude(0) == (0, 100))
    }

    @Test func timeStampAndDateInUTC() {
        let stamp = GPSRational.timeStamp(1_764_000_005.25)
        #expect(Self.values(stamp.time) == [16, 1, 0, 1, 5250, 1000] && stamp.date == "2025:11:24")
        // 23:59:59.9996 rounds to midnight of the next day: the date follows the rounded time.
        let midnight = GPSRational.timeStamp(1_764_028_799.9996)
        #expect(Self.values(midnight.time) == [0, 1, 0, 1, 0, 1000] && midnight.date == "2025:11:25")
    }
}
