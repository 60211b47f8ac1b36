/// A zlib stream (RFC 1950) whose deflate data (RFC 1951) is nothing but stored blocks: no compression, so no
/// zlib to link and nothing to get wrong, at the price of size. A QR code is a few kilobytes uncompressed at
/// the sizes the links service allows.
enum ZlibStoredStream {
    /// A stored block's length field is 16 bits.
    static let maximumBlockSize = 65_535

    static func wrap(_ data: [UInt8]) -> [UInt8] {
        let blockCount = max(1, (data.count + maximumBlockSize - 1) / maximumBlockSize)
        var stream: [UInt8] = []
        stream.reserveCapacity(2 + data.count + 5 * blockCount + 4)
        // CMF 0x78: deflate with a 32 KiB window; FLG 0x01: no dictionary, level "fastest", and
        // 0x7801 is a multiple of 31 as the header check requires.
        stream += [0x78, 0x01]
        for block in 0..<blockCount {
            let start = block * maximumBlockSize
            let end = min(start + maximumBlockSize, data.count)
            let length = UInt16(end - start)
            // BFINAL on the last block, BTYPE 00 (stored); the rest of the byte pads to the byte boundary.
            stream.append(block == blockCount - 1 ? 0x01 : 0x00)
            stream += littleEndian(length)
            stream += littleEndian(~length)
            stream += data[start..<end]
        }
        stream += bigEndian(Adler32.checksum(data))
        return stream
    }

    private static func littleEndian(_ value: UInt16) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8)]
    }
}

/// Network byte order, as PNG and zlib write their integers.
func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
}
