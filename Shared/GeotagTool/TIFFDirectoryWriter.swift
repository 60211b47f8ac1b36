/// Lays out a new directory: the count, the 12-byte entries, the next-directory offset, then the values that
/// do not fit in four bytes, each at an even offset (TIFF 6.0 asks for word alignment).
enum TIFFDirectoryWriter {
    /// The directory's bytes when it is placed at `offset` in the block (which must be even).
    static func directory(_ entries: [NewTIFFEntry], at offset: Int, next: UInt32 = 0, order: TIFFByteOrder) -> [UInt8] {
        precondition(offset % 2 == 0, "TIFF directories start at even offsets")
        let sorted = entries.sorted { $0.tag < $1.tag }
        var head = order.bytes(UInt16(sorted.count))
        var values: [UInt8] = []
        let valuesStart = offset + 2 + 12 * sorted.count + 4
        for entry in sorted {
            head += order.bytes(entry.tag) + order.bytes(entry.type.rawValue) + order.bytes(entry.count)
            if entry.value.count <= 4 {
                head += entry.value + [UInt8](repeating: 0, count: 4 - entry.value.count)
            } else {
                head += order.bytes(UInt32(valuesStart + values.count))
                values += entry.value
                if values.count % 2 == 1 { values.append(0) }
            }
        }
        return head + order.bytes(next) + values
    }
}
