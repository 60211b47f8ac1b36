/// The rationals Exif's GPS tags are made of (Exif 2.32, 4.6.6): latitude and longitude as three unsigned
/// rationals (degrees, minutes, seconds) with the sign in a separate N/S or E/W tag, altitude as one, the
/// time of day as three.
///
/// Seconds of arc are written in ten-thousandths (a 0.003 m step on the ground); rounding happens once, on
/// the whole angle, so that 59.99996″ carries into the next minute instead of printing as 60″.
public enum GPSRational {
    public typealias Rational = (numerator: UInt32, denominator: UInt32)

    static let secondsDenominator: UInt32 = 10_000

    /// Degrees, minutes and seconds of |`degrees`|.
    public static func degreesMinutesSeconds(_ degrees: Double) -> [Rational] {
        let units = UInt64((abs(degrees) * 3600 * Double(secondsDenominator)).rounded())
        let perMinute = 60 * UInt64(secondsDenominator)
        let perDegree = 60 * perMinute
        return [(UInt32(units / perDegree), 1), (UInt32(units / perMinute % 60), 1), (UInt32(units % perMinute), secondsDenominator)]
    }

    /// The angle three rationals describe, unsigned.
    public static func degrees(_ parts: [Double]) -> Double? {
        guard parts.count == 3 else { return nil }
        return parts[0] + parts[1] / 60 + parts[2] / 3600
    }

    /// |`metres`| in centimetres.
    public static func altitude(_ metres: Double) -> Rational {
        (UInt32(min((abs(metres) * 100).rounded(), Double(UInt32.max))), 100)
    }

    /// Hours, minutes and seconds (with milliseconds) of the UTC time of day, and the UTC date, of `seconds`
    /// since 1970. The milliseconds are rounded before the date is taken, so the two never disagree.
    public static func timeStamp(_ seconds: Double) -> (time: [Rational], date: String) {
        let milliseconds = Int64((seconds * 1000).rounded(.toNearestOrAwayFromZero))
        let whole = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let civil = CivilTime(seconds: whole)
        let fraction = UInt32(milliseconds - whole * 1000)
        return ([(UInt32(civil.hour), 1), (UInt32(civil.minute), 1), (UInt32(civil.second) * 1000 + fraction, 1000)], civil.exifDate)
    }
}
