import Foundation
@testable import GeotagTool

/// Photos with Exif data as a camera writes them, laid out by hand here (not with the writer under test):
/// IFD0 (Make, Model, Orientation, XResolution, DateTime, the Exif IFD pointer, and the GPS IFD pointer when there
/// is one), the Exif IFD (ExposureTime, DateTimeOriginal, SubSecTimeOriginal, OffsetTimeOriginal, a maker note,
/// BodySerialNumber when given), the GPS IFD when given, IFD1 with a thumbnail.
enum ExifFixture {
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        var value: [UInt8]
    }

    static let makerNote: [UInt8] = Array("Nikon\0".utf8) + Array(0..<40)
    static let thumbnail: [UInt8] = [0xFF, 0xD8, 0xFF, 0xD9] + Array(repeating: 0x55, count: 20)

    static func tiff(
        _ order: TIFFByteOrder, dateTimeOriginal: String = "2025:11:24 16:00:05", make: String = "Custodian Camera",
        model: String = "DSLR1", serial: String? = nil, gps: [Entry]? = nil
    ) -> [UInt8] {
        func u16(_ value: UInt16) -> [UInt8] {
            order == .bigEndian ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)]
        }
        func u32(_ value: UInt32) -> [UInt8] {
            let big = [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
            return order == .bigEndian ? big : big.reversed()
        }
        func ascii(_ text: String) -> [UInt8] { Array(text.utf8) + [0] }
        var block: [UInt8] = (order == .bigEndian ? Array("MM".utf8) : Array("II".utf8)) + u16(42) + u32(8)
        // Directories with their values after them; `pointers` are patched once the next directory's place is known.
        func directory(_ entries: [Entry], next: UInt32) -> (start: Int, entryOffsets: [UInt16: Int]) {
            let start = block.count
            var values: [UInt8] = []
            var body: [UInt8] = u16(UInt16(entries.count))
            var offsets: [UInt16: Int] = [:]
            let valueStart = start + 2 + 12 * entries.count + 4
            for entry in entries {
                offsets[entry.tag] = start + body.count
                body += u16(entry.tag) + u16(entry.type) + u32(entry.count)
                if entry.value.count <= 4 {
                    body += entry.value + Array(repeating: 0, count: 4 - entry.value.count)
                } else {
                    body += u32(UInt32(valueStart + values.count))
                    values += entry.value
                    if values.count % 2 == 1 { values.append(0) }
                }
            }
            block += body + u32(next) + values
            return (start, offsets)
        }
        var ifd0Entries = [
            Entry(tag: 0x010F, type: 2, count: UInt32(make.utf8.count + 1), value: ascii(make)),
            Entry(tag: 0x0110, type: 2, count: UInt32(model.utf8.count + 1), value: ascii(model)),
            Entry(tag: 0x0112, type: 3, count: 1, value: u16(6)),
            Entry(tag: 0x011A, type: 5, count: 1, value: u32(300) + u32(1)),
            Entry(tag: 0x0132, type: 2, count: 20, value: ascii("2025:11:24 18:00:00")),
            Entry(tag: 0x8769, type: 4, count: 1, value: u32(0)),
        ]
        if gps != nil { ifd0Entries.append(Entry(tag: 0x8825, type: 4, count: 1, value: u32(0))) }
        let ifd0 = directory(ifd0Entries, next: 0)
        var exifEntries = [
            Entry(tag: 0x829A, type: 5, count: 1, value: u32(1) + u32(250)),
            Entry(tag: 0x9003, type: 2, count: 20, value: ascii(dateTimeOriginal)),
            Entry(tag: 0x9011, type: 2, count: 7, value: ascii("+00:00")),
            Entry(tag: 0x927C, type: 7, count: UInt32(makerNote.count), value: makerNote),
            Entry(tag: 0x9291, type: 2, count: 3, value: ascii("50")),
        ]
        if let serial { exifEntries.append(Entry(tag: 0xA431, type: 2, count: UInt32(serial.utf8.count + 1), value: ascii(serial))) }
        let exif = directory(exifEntries, next: 0)
        if let gps {
            let gpsIFD = directory(gps, next: 0)
            block.replaceSubrange(ifd0.entryOffsets[0x8825]! + 8..<ifd0.entryOffsets[0x8825]! + 12, with: u32(UInt32(gpsIFD.start)))
        }
        let ifd1 = directory(
            [
                Entry(tag: 0x0103, type: 3, count: 1, value: u16(6)),
                Entry(tag: 0x0201, type: 4, count: 1, value: u32(0)),
                Entry(tag: 0x0202, type: 4, count: 1, value: u32(UInt32(thumbnail.count))),
            ], next: 0)
        let thumbnailAt = block.count
        block += thumbnail
        block.replaceSubrange(ifd0.entryOffsets[0x8769]! + 8..<ifd0.entryOffsets[0x8769]! + 12, with: u32(UInt32(exif.start)))
        block.replaceSubrange(ifd1.entryOffsets[0x0201]! + 8..<ifd1.entryOffsets[0x0201]! + 12, with: u32(UInt32(thumbnailAt)))
        // IFD0's next-directory field, after its entries.
        let next = ifd0.start + 2 + 12 * ifd0Entries.count
        block.replaceSubrange(next..<next + 4, with: u32(UInt32(ifd1.start)))
        return block
    }

    /// A small grey JPEG (JFIF APP0 first, as libjpeg-turbo writes it), with an Exif APP1 holding `tiff` after the APP0.
    static func jpeg(tiff: [UInt8]?) throws -> [UInt8] {
        try jpeg(GreyImage(width: 64, height: 48, pixels: (0..<64 * 48).map { UInt8(truncatingIfNeeded: $0 * 7) }), tiff: tiff)
    }

    /// `image` as a JPEG, with an Exif APP1 holding `tiff` after the APP0.
    static func jpeg(_ image: GreyImage, tiff: [UInt8]?) throws -> [UInt8] {
        var bytes = try image.jpeg(quality: 90)
        guard let tiff else { return bytes }
        let payload = Array("Exif\0\0".utf8) + tiff
        let length = payload.count + 2
        // After SOI (2 bytes) and the APP0 (4 + its length - 2).
        let app0End = 4 + (Int(bytes[4]) << 8 | Int(bytes[5]))
        bytes.insert(contentsOf: [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload, at: app0End)
        return bytes
    }
}
