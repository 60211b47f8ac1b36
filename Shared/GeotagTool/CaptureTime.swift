import Foundation

/// When the camera says a photo was taken: its wall clock (DateTimeOriginal, else DateTime), with the
/// fraction of a second (SubSecTimeOriginal / SubSecTime) and the UTC offset (OffsetTimeOriginal / OffsetTime)
/// when the camera wrote them.
///
/// Without an offset the wall clock is read as if it were UTC: the camera's clock is wrong by an unknown amount
/// anyway, and the QR photo measures the whole error, time zone included. With an offset, the offset is taken
/// off first, so a camera whose zone setting changed during the tour still lines up.
public struct CaptureTime: Sendable, Equatable {
    /// The wall-clock fields as seconds since 1970, as if UTC, with the fraction.
    public var wallClock: Double
    /// Seconds east of UTC, from OffsetTimeOriginal.
    public var utcOffset: Int?

    public init(wallClock: Double, utcOffset: Int? = nil) {
        self.wallClock = wallClock
        self.utcOffset = utcOffset
    }

    /// The camera's reading as seconds since 1970: the wall clock less its offset.
    public var cameraSeconds: Double {
        wallClock - Double(utcOffset ?? 0)
    }

    /// From the Exif strings; nil when the date is missing or unreadable.
    init?(dateTime: String?, subSeconds: String?, offset: String?) {
        guard let dateTime, let civil = CivilTime(exif: dateTime) else { return nil }
        var fraction = 0.0
        if let subSeconds {
            let digits = subSeconds.trimmingCharacters(in: .whitespaces)
            if !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), let value = Double("0." + digits) {
                fraction = value
            }
        }
        self.wallClock = Double(civil.seconds) + fraction
        self.utcOffset = offset.flatMap(Self.offsetSeconds)
    }

    /// `+HH:MM` or `-HH:MM` (Exif 2.31, OffsetTimeOriginal); nil for anything else (blanks included).
    static func offsetSeconds(_ text: String) -> Int? {
        let bytes = Array(text.utf8.prefix(6))
        guard bytes.count == 6, bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-"), bytes[3] == UInt8(ascii: ":"),
            let hours = Int(String(decoding: bytes[1..<3], as: UTF8.self)), let minutes = Int(String(decoding: bytes[4..<6], as: UTF8.self)),
            hours <= 14, minutes < 60
        else { return nil }
        let seconds = hours * 3600 + minutes * 60
        return bytes[0] == UInt8(ascii: "-") ? -seconds : seconds
    }
}
