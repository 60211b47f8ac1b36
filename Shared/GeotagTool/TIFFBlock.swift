/// A TIFF block as Exif stores it: the header, IFD0 with its pointers to the Exif IFD and the GPS IFD, all
/// offsets counted from the block's first byte. Reading keeps the raw bytes, so that a writer can change
/// what it must and leave every other byte where it was.
public struct TIFFBlock: Sendable {
    public let bytes: [UInt8]
    public let order: TIFFByteOrder
    /// Where IFD0 starts.
    let ifd0Offset: Int
    public let ifd0: [TIFFEntry]

    // Pointer tags (Exif 2.32, 4.6.3).
    public static let exifIFDPointer: UInt16 = 0x8769
    public static let gpsIFDPointer: UInt16 = 0x8825

    /// Refuses what is not a TIFF block, or an IFD0 that does not lie within it.
    public init(_ bytes: [UInt8]) throws(ExifError) {
        guard let order = TIFFByteOrder(header: bytes), let first = order.uint32(bytes, at: 4) else { throw .notTIFF }
        self.bytes = bytes
        self.order = order
        self.ifd0Offset = Int(first)
        self.ifd0 = try Self.directory(in: bytes, at: Int(first), order: order)
    }

    /// The directory at `offset`: its entries with their values. Entries whose value lies outside the block
    /// keep an empty value rather than spoiling the whole block (a damaged maker note should not stop geotagging).
    static func directory(in bytes: [UInt8], at offset: Int, order: TIFFByteOrder) throws(ExifError) -> [TIFFEntry] {
        guard let count = order.uint16(bytes, at: offset), offset + 2 + Int(count) * 12 + 4 <= bytes.count else {
            throw .directoryOutOfBounds(offset: offset)
        }
        return (0..<Int(count)).map { index in
            let start = offset + 2 + index * 12
            var entry = TIFFEntry(
                tag: order.uint16(bytes, at: start)!, type: order.uint16(bytes, at: start + 2)!,
                count: order.uint32(bytes, at: start + 4)!, field: Array(bytes[start + 8..<start + 12]), value: [])
            if let size = entry.valueSize {
                if size <= 4 {
                    entry.value = Array(entry.field.prefix(size))
                } else if let at = entry.valueOffset(order), at + size <= bytes.count {
                    entry.value = Array(bytes[at..<at + size])
                }
            }
            return entry
        }
    }

    /// The directory a pointer entry of IFD0 leads to (the Exif or GPS IFD), or nil when there is none or it is damaged.
    public func subdirectory(_ pointerTag: UInt16) -> [TIFFEntry]? {
        guard let offset = offset(of: pointerTag) else { return nil }
        return try? Self.directory(in: bytes, at: offset, order: order)
    }

    func offset(of pointerTag: UInt16) -> Int? {
        ifd0.first { $0.tag == pointerTag }?.integer(order).map(Int.init)
    }
}

public enum ExifError: Error, Sendable, Equatable, CustomStringConvertible {
    case notJPEG
    case truncatedJPEG
    case notTIFF
    case directoryOutOfBounds(offset: Int)
    case exifTooLarge(bytes: Int)

    public var description: String {
        switch self {
        case .notJPEG: "not a JPEG file"
        case .truncatedJPEG: "the JPEG file ends inside a segment"
        case .notTIFF: "its Exif data do not start with a TIFF header"
        case .directoryOutOfBounds(let offset): "its Exif data have a directory at \(offset) that lies outside them"
        case .exifTooLarge(let bytes): "its Exif data would take \(bytes) bytes, more than a JPEG segment holds (65527)"
        }
    }
}
