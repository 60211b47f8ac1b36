/// Adds or replaces a JPEG's GPS tags.
///
/// A photo that already has a GPS IFD (from the camera, another tool, or an earlier run) keeps the GPS tags this
/// writer does not write (GPSImgDirection, GPSMapDatum, the altitude when the route has none …): the new GPS IFD
/// holds this writer's tags and a copy of each other tag of the old one, value included, since the old IFD may
/// be cut off. A tag of a type TIFF does not define is left out: its value's size, and so where it ends, is unknown.
///
/// The existing TIFF block keeps every byte where it was: maker notes hold offsets of their own that no
/// writer can know about, so moving anything could break them. The new GPS IFD is appended to the block; if
/// IFD0 already points to a GPS IFD, that pointer is changed in place, else a copy of IFD0 with the GPSInfo
/// pointer added is appended and the header points to it (the old IFD0 stays as unreferenced bytes). A GPS
/// IFD that ends the block, as this writer leaves it, is cut off before the new one is appended, so tagging
/// a photo again does not make it grow. A JPEG without Exif gets an APP1 with an IFD0 that holds only the
/// GPSInfo pointer.
public enum ExifGPSWriter {
    public static func write(_ tags: GPSTags, into jpeg: [UInt8]) throws(ExifError) -> [UInt8] {
        var file = try JPEGFile(jpeg)
        let tiff: [UInt8]
        if let existing = file.exifTIFF {
            tiff = try settingGPS(tags, in: TIFFBlock(existing))
        } else {
            tiff = newBlock(tags)
        }
        try file.setExifTIFF(tiff)
        return file.bytes
    }

    /// A block of its own: big-endian, as the Exif standard's examples are.
    static func newBlock(_ tags: GPSTags, order: TIFFByteOrder = .bigEndian) -> [UInt8] {
        let ifd0Offset = 8
        let gpsOffset = ifd0Offset + 2 + 12 + 4
        let pointer = NewTIFFEntry(tag: TIFFBlock.gpsIFDPointer, type: .long, count: 1, value: order.bytes(UInt32(gpsOffset)))
        return order.header(firstIFD: UInt32(ifd0Offset))
            + TIFFDirectoryWriter.directory([pointer], at: ifd0Offset, order: order)
            + TIFFDirectoryWriter.directory(tags.entries(order), at: gpsOffset, order: order)
    }

    static func settingGPS(_ tags: GPSTags, in block: TIFFBlock) -> [UInt8] {
        let order = block.order
        var out = block.bytes
        let pointerIndex = block.ifd0.firstIndex { $0.tag == TIFFBlock.gpsIFDPointer }
        let entries = merged(tags.entries(order), keeping: pointerIndex == nil ? [] : block.subdirectory(TIFFBlock.gpsIFDPointer) ?? [])
        if pointerIndex != nil, let old = block.offset(of: TIFFBlock.gpsIFDPointer), gpsDirectoryEndsBlock(block, at: old) {
            out.removeSubrange(old...)
        }
        if out.count % 2 == 1 { out.append(0) }
        if let index = pointerIndex {
            let gpsOffset = out.count
            out += TIFFDirectoryWriter.directory(entries, at: gpsOffset, order: order)
            let entry = block.ifd0Offset + 2 + 12 * index
            order.put(TIFFType.long.rawValue, into: &out, at: entry + 2)
            order.put(UInt32(1), into: &out, at: entry + 4)
            order.put(UInt32(gpsOffset), into: &out, at: entry + 8)
        } else {
            // IFD0 grows by one entry, so it cannot stay where it is: a copy goes to the end, its entries as
            // they were (their offsets still point at the same, unmoved values), in tag order. The GPS IFD
            // follows it, so that it ends the block.
            let ifd0Offset = out.count
            let count = block.ifd0.count
            let gpsOffset = ifd0Offset + 2 + 12 * (count + 1) + 4
            var raw = (0..<count).map { index in
                let start = block.ifd0Offset + 2 + 12 * index
                return (tag: block.ifd0[index].tag, bytes: Array(block.bytes[start..<start + 12]))
            }
            let pointer =
                order.bytes(TIFFBlock.gpsIFDPointer) + order.bytes(TIFFType.long.rawValue) + order.bytes(UInt32(1))
                + order.bytes(UInt32(gpsOffset))
            raw.append((TIFFBlock.gpsIFDPointer, pointer))
            raw.sort { $0.tag < $1.tag }
            let next = order.uint32(block.bytes, at: block.ifd0Offset + 2 + 12 * count) ?? 0
            out += order.bytes(UInt16(raw.count)) + raw.flatMap(\.bytes) + order.bytes(next)
            out += TIFFDirectoryWriter.directory(entries, at: gpsOffset, order: order)
            order.put(UInt32(ifd0Offset), into: &out, at: 4)
        }
        return out
    }

    /// `new`, and the entries of `old` whose tags `new` does not have (the first of a tag that is there twice), with
    /// their values copied.
    static func merged(_ new: [NewTIFFEntry], keeping old: [TIFFEntry]) -> [NewTIFFEntry] {
        var tags = Set(new.map(\.tag))
        var entries = new
        for entry in old where !tags.contains(entry.tag) {
            // An entry whose value lies outside the block was read with no value: there is nothing to copy.
            guard let type = TIFFType(rawValue: entry.type), entry.value.count == type.size * Int(entry.count) else { continue }
            tags.insert(entry.tag)
            entries.append(NewTIFFEntry(tag: entry.tag, type: type, count: entry.count, value: entry.value))
        }
        return entries
    }

    /// Whether the GPS IFD at `offset`, with its values laid out right after it, is the last thing in the
    /// block and nothing else starts inside it: only then may its bytes be reused.
    static func gpsDirectoryEndsBlock(_ block: TIFFBlock, at offset: Int) -> Bool {
        guard offset > block.ifd0Offset, offset % 2 == 0,
            let entries = try? TIFFBlock.directory(in: block.bytes, at: offset, order: block.order)
        else { return false }
        let directoryEnd = offset + 2 + 12 * entries.count + 4
        var end = directoryEnd
        for entry in entries {
            guard let size = entry.valueSize else { return false }
            guard let at = entry.valueOffset(block.order) else { continue }
            // Values follow one another, each padded to an even length, as TIFFDirectoryWriter writes them.
            guard at == end else { return false }
            end = at + size + size % 2
        }
        let ifd0End = block.ifd0Offset + 2 + 12 * block.ifd0.count + 4
        return ifd0End <= offset && (end == block.bytes.count || end == block.bytes.count + 1)
    }
}
