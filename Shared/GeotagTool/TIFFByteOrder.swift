import Foundation

/// The byte order a TIFF block (the body of an Exif APP1 segment) declares in its first two bytes: `II` for
/// little-endian (Intel), `MM` for big-endian (Motorola). Cameras write either, and every number and offset
/// in the block follows it, so every read and write goes through here.
public enum TIFFByteOrder: Sendable, Equatable {
    case littleEndian
    case bigEndian

    /// The order named by a TIFF header (`II*\0` or `MM\0*`), or nil.
    init?(header bytes: [UInt8]) {
        guard bytes.count >= 4 else { return nil }
        switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
        case (0x49, 0x49, 0x2A, 0x00): self = .littleEndian
        case (0x4D, 0x4D, 0x00, 0x2A): self = .bigEndian
        default: return nil
        }
    }

    /// The eight-byte header of a TIFF block whose first directory is at `firstIFD`.
    func header(firstIFD: UInt32) -> [UInt8] {
        let magic: [UInt8] = self == .littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]
        return magic + bytes(UInt16(42)) + bytes(firstIFD)
    }

    func uint16(_ bytes: [UInt8], at offset: Int) -> UInt16? {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        let (a, b) = (UInt16(bytes[offset]), UInt16(bytes[offset + 1]))
        return self == .littleEndian ? a | b << 8 : a << 8 | b
    }

    func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        let values = (0..<4).map { UInt32(bytes[offset + $0]) }
        return self == .littleEndian
            ? values[0] | values[1] << 8 | values[2] << 16 | values[3] << 24
            : values[0] << 24 | values[1] << 16 | values[2] << 8 | values[3]
    }

    func bytes(_ value: UInt16) -> [UInt8] {
        let big = [UInt8(value >> 8), UInt8(value & 0xFF)]
        return self == .bigEndian ? big : big.reversed()
    }

    func bytes(_ value: UInt32) -> [UInt8] {
        let big = [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        return self == .bigEndian ? big : big.reversed()
    }

    func put(_ value: UInt32, into bytes: inout [UInt8], at offset: Int) {
        bytes.replaceSubrange(offset..<offset + 4, with: self.bytes(value))
    }

    func put(_ value: UInt16, into bytes: inout [UInt8], at offset: Int) {
        bytes.replaceSubrange(offset..<offset + 2, with: self.bytes(value))
    }
}
