import Foundation

/// Writes a QR code as a grayscale PNG (ISO/IEC 15948): signature, IHDR, one IDAT holding a zlib stream of
/// stored deflate blocks, IEND, each chunk with its CRC-32. Dark modules are black, everything else white.
public enum PNGEncoder {
    /// 1 bit per pixel gives the smallest file; 8 bits suit tools that expect one byte per pixel.
    public enum BitDepth: UInt8, Sendable, CaseIterable {
        case one = 1
        case eight = 8
    }

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    public static func encode(_ layout: QRLayout, bitDepth: BitDepth = .one) -> Data {
        let side = UInt32(layout.pixelsPerSide)
        // Width, height, bit depth, colour type 0 (grayscale), deflate, adaptive filtering, no interlace.
        let header = bigEndian(side) + bigEndian(side) + [bitDepth.rawValue, 0, 0, 0, 0]
        var png = signature
        png += chunk("IHDR", header)
        png += chunk("IDAT", ZlibStoredStream.wrap(scanlines(layout, bitDepth: bitDepth)))
        png += chunk("IEND", [])
        return Data(png)
    }

    /// The image as PNG filters it: each row a filter-type byte (0, none) and then its pixels. Pixels are
    /// packed from the most significant bit; in grayscale 0 is black.
    static func scanlines(_ layout: QRLayout, bitDepth: BitDepth) -> [UInt8] {
        let width = layout.pixelsPerSide
        let bytesPerRow = bitDepth == .one ? (width + 7) / 8 : width
        var image: [UInt8] = []
        image.reserveCapacity((1 + bytesPerRow) * width)
        for moduleRow in 0..<layout.modulesPerSide {
            var row = [UInt8](repeating: 0, count: 1 + bytesPerRow)
            for x in 0..<width where !layout.isDark(row: moduleRow, column: x / layout.moduleSize) {
                switch bitDepth {
                case .one: row[1 + x / 8] |= 0x80 >> UInt8(x % 8)
                case .eight: row[1 + x] = 0xFF
                }
            }
            // A module is `moduleSize` pixels tall: the same row that many times.
            for _ in 0..<layout.moduleSize { image += row }
        }
        return image
    }

    /// Length, type, data, and the CRC-32 of type and data.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        precondition(typeBytes.count == 4, "a PNG chunk type has four letters")
        var crc = CRC32()
        crc.update(typeBytes)
        crc.update(data)
        return bigEndian(UInt32(data.count)) + typeBytes + data + bigEndian(crc.value)
    }
}
