/// The TIFF field types an Exif block uses, with their sizes (TIFF 6.0 section 2, Exif 2.32 section 4.6.2).
public enum TIFFType: UInt16, Sendable {
    case byte = 1, ascii = 2, short = 3, long = 4, rational = 5, signedByte = 6, undefined = 7, signedShort = 8,
        signedLong = 9, signedRational = 10, float = 11, double = 12, ifd = 13

    var size: Int {
        switch self {
        case .byte, .ascii, .signedByte, .undefined: 1
        case .short, .signedShort: 2
        case .long, .signedLong, .float, .ifd: 4
        case .rational, .signedRational, .double: 8
        }
    }
}

/// One 12-byte directory entry: tag, type, count, and the value (inline when it fits in four bytes, else
/// stored elsewhere in the block at the offset the entry holds).
public struct TIFFEntry: Sendable, Equatable {
    public var tag: UInt16
    public var type: UInt16
    public var count: UInt32
    /// The entry's last four bytes as they are in the block: the value itself, or its offset.
    public var field: [UInt8]
    /// The value's bytes in the block's byte order (a copy of `field`'s first bytes, or of the bytes at its offset).
    public var value: [UInt8]

    /// The value's size in bytes, or nil for a type this reader does not know (its value is then not read).
    var valueSize: Int? {
        TIFFType(rawValue: type).map { $0.size * Int(count) }
    }

    /// Where the value lies in the block when it does not fit in the entry.
    func valueOffset(_ order: TIFFByteOrder) -> Int? {
        guard let size = valueSize, size > 4 else { return nil }
        return order.uint32(field, at: 0).map(Int.init)
    }

    /// ASCII text without its NUL terminator(s), or nil for another type.
    public var text: String? {
        guard type == TIFFType.ascii.rawValue else { return nil }
        return String(decoding: value.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// Unsigned rationals as numbers (a zero denominator reads as nil).
    func rationals(_ order: TIFFByteOrder) -> [Double?]? {
        guard type == TIFFType.rational.rawValue else { return nil }
        return (0..<Int(count)).map { index in
            guard let numerator = order.uint32(value, at: index * 8), let denominator = order.uint32(value, at: index * 8 + 4),
                denominator != 0
            else { return nil }
            return Double(numerator) / Double(denominator)
        }
    }

    /// A SHORT or LONG as a number (the first one if there are several).
    func integer(_ order: TIFFByteOrder) -> UInt32? {
        switch TIFFType(rawValue: type) {
        case .short: order.uint16(value, at: 0).map(UInt32.init)
        case .long, .ifd: order.uint32(value, at: 0)
        case .byte: value.first.map(UInt32.init)
        default: nil
        }
    }
}
