/// The GPS IFD `custodian geotag` writes (Exif 2.32, 4.6.6): version 2.3, latitude and longitude with their
/// references, altitude with its reference when the route has one, and the UTC date and time of the
/// corrected capture time.
public struct GPSTags: Sendable, Equatable {
    public var position: GeoPosition
    /// The corrected capture time, seconds since 1970 (UTC).
    public var time: Double

    public init(position: GeoPosition, time: Double) {
        self.position = position
        self.time = time
    }

    public enum Tag {
        public static let versionID: UInt16 = 0x0000
        public static let latitudeRef: UInt16 = 0x0001
        public static let latitude: UInt16 = 0x0002
        public static let longitudeRef: UInt16 = 0x0003
        public static let longitude: UInt16 = 0x0004
        public static let altitudeRef: UInt16 = 0x0005
        public static let altitude: UInt16 = 0x0006
        public static let timeStamp: UInt16 = 0x0007
        public static let dateStamp: UInt16 = 0x001D
    }

    /// The entries, in ascending tag order as TIFF requires, with their values in `order`.
    func entries(_ order: TIFFByteOrder) -> [NewTIFFEntry] {
        func rationals(_ values: [GPSRational.Rational]) -> [UInt8] {
            values.flatMap { order.bytes($0.numerator) + order.bytes($0.denominator) }
        }
        let stamp = GPSRational.timeStamp(time)
        var entries: [NewTIFFEntry] = [
            NewTIFFEntry(tag: Tag.versionID, type: .byte, count: 4, value: [2, 3, 0, 0]),
            NewTIFFEntry(ascii: position.latitude < 0 ? "S" : "N", tag: Tag.latitudeRef),
            NewTIFFEntry(tag: Tag.latitude, type: .rational, count: 3, value: rationals(GPSRational.degreesMinutesSeconds(position.latitude))),
            NewTIFFEntry(ascii: position.longitude < 0 ? "W" : "E", tag: Tag.longitudeRef),
            NewTIFFEntry(tag: Tag.longitude, type: .rational, count: 3, value: rationals(GPSRational.degreesMinutesSeconds(position.longitude))),
        ]
        if let altitude = position.altitude {
            // 0: above sea level, 1: below.
            entries.append(NewTIFFEntry(tag: Tag.altitudeRef, type: .byte, count: 1, value: [altitude < 0 ? 1 : 0]))
            entries.append(NewTIFFEntry(tag: Tag.altitude, type: .rational, count: 1, value: rationals([GPSRational.altitude(altitude)])))
        }
        entries.append(NewTIFFEntry(tag: Tag.timeStamp, type: .rational, count: 3, value: rationals(stamp.time)))
        entries.append(NewTIFFEntry(ascii: stamp.date, tag: Tag.dateStamp))
        return entries
    }
}

/// An entry to be written: its value in the block's byte order, placed inline or after the directory by
/// `TIFFDirectoryWriter`.
struct NewTIFFEntry: Sendable, Equatable {
    var tag: UInt16
    var type: TIFFType
    var count: UInt32
    var value: [UInt8]

    init(tag: UInt16, type: TIFFType, count: UInt32, value: [UInt8]) {
        precondition(value.count == type.size * Int(count), "a TIFF value's size is its type's size times its count")
        (self.tag, self.type, self.count, self.value) = (tag, type, count, value)
    }

    /// ASCII text with its NUL terminator, as TIFF counts it.
    init(ascii text: String, tag: UInt16) {
        let bytes = Array(text.utf8) + [0]
        self.init(tag: tag, type: .ascii, count: UInt32(bytes.count), value: bytes)
    }
}
