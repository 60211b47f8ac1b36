import Testing
@testable import GeotagTool

@Suite("Exif GPS writer")
struct ExifRoundTripTests {
    static let tags = GPSTags(position: GeoPosition(latitude: 52.090_712_3, longitude: -5.121_449_9, altitude: -3.25), time: 1_764_000_005.5)

    static func expectClose(_ read: GPSTags?, _ written: GPSTags, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let read else { Issue.record("no GPS tags read back", sourceLocation: sourceLocation); return }
        #expect(abs(read.position.latitude - written.position.latitude) < 1e-7, sourceLocation: sourceLocation)
        #expect(abs(read.position.longitude - written.position.longitude) < 1e-7, sourceLocation: sourceLocation)
        if let altitude = written.position.altitude {
            #expect(abs((read.position.altitude ?? .nan) - altitude) < 0.006, sourceLocation: sourceLocation)
        } else {
            #expect(read.position.altitude == nil, sourceLocation: sourceLocation)
        }
        #expect(abs(read.time - written.time) < 0.001, sourceLocation: sourceLocation)
    }

    /// Every segment but the Exif APP1, and the image data, are byte for byte as they were.
    static func expectOnlyExifChanged(_ before: [UInt8], _ after: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let old = try JPEGFile(before), new = try JPEGFile(after)
        #expect(old.tail == new.tail, "the image data changed", sourceLocation: sourceLocation)
        #expect(old.segments.filter { !JPEGFile.isExif($0) } == new.segments.filter { !JPEGFile.isExif($0) }, sourceLocation: sourceLocation)
        #expect(new.segments.filter(JPEGFile.isExif).count == 1, sourceLocation: sourceLocation)
    }

    @Test(arguments: [TIFFByteOrder.littleEndian, .bigEndian])
    func intoExifWithOtherTagsEveryOtherByteStays(order: TIFFByteOrder) throws {
        let tiff = ExifFixture.tiff(order)
        let original = try ExifFixture.jpeg(tiff: tiff)
        let before = try ExifMetadata(jpeg: original)
        #expect(before.byteOrder == order && before.gps == nil)
        #expect(before.captureTime == CaptureTime(wallClock: 1_764_000_005.5, utcOffset: 0))

        let tagged = try ExifGPSWriter.write(Self.tags, into: original)
        try Self.expectOnlyExifChanged(original, tagged)
        let after = try ExifMetadata(jpeg: tagged)
        #expect(after.byteOrder == order && after.captureTime == before.captureTime)
        Self.expectClose(after.gps, Self.tags)

        // Nothing in the old block moved: only the header's IFD0 offset differs, and the new IFD0 and GPS IFD follow.
        let newTIFF = try #require(try JPEGFile(tagged).exifTIFF)
        #expect(Array(newTIFF[0..<4]) == Array(tiff[0..<4]) && Array(newTIFF[8..<tiff.count]) == Array(tiff[8...]))
        let oldBlock = try TIFFBlock(tiff), newBlock = try TIFFBlock(newTIFF)
        #expect(newBlock.ifd0.filter { $0.tag != TIFFBlock.gpsIFDPointer } == oldBlock.ifd0)
        #expect(newBlock.subdirectory(TIFFBlock.exifIFDPointer) == oldBlock.subdirectory(TIFFBlock.exifIFDPointer))
        #expect(newBlock.ifd0.map(\.tag) == newBlock.ifd0.map(\.tag).sorted())
        // IFD1 (the thumbnail) is still chained after the new IFD0.
        let next = order.uint32(newTIFF, at: newBlock.ifd0Offset + 2 + 12 * newBlock.ifd0.count)
        #expect(next == order.uint32(tiff, at: 8 + 2 + 12 * 6))

        let gps = try #require(newBlock.subdirectory(TIFFBlock.gpsIFDPointer))
        #expect(gps.map(\.tag) == [0, 1, 2, 3, 4, 5, 6, 7, 0x1D])
        #expect(gps[0].value == [2, 3, 0, 0])
        #expect(gps[1].text == "N" && gps[3].text == "W" && gps[5].value == [1])
        #expect(gps[8].text == "2025:11:24")
    }

    @Test(arguments: [TIFFByteOrder.littleEndian, .bigEndian])
    func taggingAgainReplacesOurGPSTagsWithoutGrowing(order: TIFFByteOrder) throws {
        let original = try ExifFixture.jpeg(tiff: ExifFixture.tiff(order))
        let once = try ExifGPSWriter.write(Self.tags, into: original)
        let moved = GPSTags(position: GeoPosition(latitude: -33.856_784, longitude: 151.215_297, altitude: nil), time: 1_764_100_000)
        let twice = try ExifGPSWriter.write(moved, into: once)
        let thrice = try ExifGPSWriter.write(moved, into: twice)
        #expect(twice.count <= once.count)
        #expect(thrice == twice)
        try Self.expectOnlyExifChanged(original, twice)
        let read = try ExifMetadata(jpeg: twice)
        // The new position and time; the altitude, which the second route has none of, is the one written before.
        Self.expectClose(
            read.gps,
            GPSTags(
                position: GeoPosition(
                    latitude: moved.position.latitude, longitude: moved.position.longitude,
                    altitude: Self.tags.position.altitude), time: moved.time))
        let twiceTIFF = try #require(try JPEGFile(twice).exifTIFF)
        let gps = try #require(try TIFFBlock(twiceTIFF).subdirectory(TIFFBlock.gpsIFDPointer))
        #expect(gps.map(\.tag) == [0, 1, 2, 3, 4, 5, 6, 7, 0x1D])
        #expect(gps[1].text == "S" && gps[3].text == "E")
    }

    /// A GPS IFD as a camera with a GPS and a compass writes it, in the middle of the block: position, altitude,
    /// the direction the camera looked, the map datum and the fix's error.
    static func cameraGPS(_ order: TIFFByteOrder) -> [ExifFixture.Entry] {
        func rational(_ numerator: UInt32, _ denominator: UInt32) -> [UInt8] { order.bytes(numerator) + order.bytes(denominator) }
        return [
            ExifFixture.Entry(tag: 0x0000, type: 1, count: 4, value: [2, 2, 0, 0]),
            ExifFixture.Entry(tag: 0x0001, type: 2, count: 2, value: Array("N".utf8) + [0]),
            ExifFixture.Entry(tag: 0x0002, type: 5, count: 3, value: rational(10, 1) + rational(30, 1) + rational(0, 1)),
            ExifFixture.Entry(tag: 0x0003, type: 2, count: 2, value: Array("E".utf8) + [0]),
            ExifFixture.Entry(tag: 0x0004, type: 5, count: 3, value: rational(20, 1) + rational(15, 1) + rational(0, 1)),
            ExifFixture.Entry(tag: 0x0005, type: 1, count: 1, value: [0]),
            ExifFixture.Entry(tag: 0x0006, type: 5, count: 1, value: rational(12_345, 100)),
            ExifFixture.Entry(tag: 0x0010, type: 2, count: 2, value: Array("T".utf8) + [0]),
            ExifFixture.Entry(tag: 0x0011, type: 5, count: 1, value: rational(27_150, 100)),
            ExifFixture.Entry(tag: 0x0012, type: 2, count: 7, value: Array("WGS-84".utf8) + [0]),
            ExifFixture.Entry(tag: 0x001F, type: 5, count: 1, value: rational(5, 1)),
        ]
    }

    static func gpsEntries(_ jpeg: [UInt8]) throws -> [UInt16: TIFFEntry] {
        let tiff = try #require(try JPEGFile(jpeg).exifTIFF)
        let entries = try #require(try TIFFBlock(tiff).subdirectory(TIFFBlock.gpsIFDPointer))
        #expect(entries.map(\.tag) == entries.map(\.tag).sorted())
        return Dictionary(entries.map { ($0.tag, $0) }, uniquingKeysWith: { first, _ in first })
    }

    @Test(arguments: [TIFFByteOrder.littleEndian, .bigEndian])
    func aPhotoTaggedBeforeKeepsItsOtherGPSTags(order: TIFFByteOrder) throws {
        let original = try ExifFixture.jpeg(tiff: ExifFixture.tiff(order, gps: Self.cameraGPS(order)))
        let old = try Self.gpsEntries(original)
        #expect(try ExifMetadata(jpeg: original).gps?.position.altitude == 123.45)

        // A route without altitude: ours replace position, version and time; the camera's altitude, direction,
        // datum and error stay, values and all.
        let flat = GPSTags(position: GeoPosition(latitude: -33.856_784, longitude: 151.215_297, altitude: nil), time: 1_764_100_000)
        let tagged = try ExifGPSWriter.write(flat, into: original)
        try Self.expectOnlyExifChanged(original, tagged)
        let merged = try Self.gpsEntries(tagged)
        #expect(merged.keys.sorted() == [0, 1, 2, 3, 4, 5, 6, 7, 0x10, 0x11, 0x12, 0x1D, 0x1F])
        for tag: UInt16 in [5, 6, 0x10, 0x11, 0x12, 0x1F] {
            let (before, after) = (try #require(old[tag]), try #require(merged[tag]))
            #expect(before.type == after.type && before.count == after.count && before.value == after.value, "tag \(tag)")
        }
        #expect(merged[0]?.value == [2, 3, 0, 0] && merged[1]?.text == "S" && merged[3]?.text == "E")
        let read = try ExifMetadata(jpeg: tagged)
        #expect(abs((read.gps?.position.latitude ?? 0) - flat.position.latitude) < 1e-7)
        #expect(read.gps?.position.altitude == 123.45)

        // With an altitude of its own the route's replaces the camera's; tagging again changes nothing.
        let withAltitude = try ExifGPSWriter.write(Self.tags, into: tagged)
        let replaced = try Self.gpsEntries(withAltitude)
        #expect(replaced[5]?.value == [1] && replaced[6]?.rationals(order) == [3.25])
        #expect(replaced[0x11]?.value == old[0x11]?.value && replaced[0x12]?.text == "WGS-84")
        #expect(try ExifGPSWriter.write(Self.tags, into: withAltitude) == withAltitude)
        Self.expectClose(try ExifMetadata(jpeg: withAltitude).gps, Self.tags)
    }

    @Test func aJPEGWithoutExifGetsAnAPP1AfterItsJFIFSegment() throws {
        let original = try ExifFixture.jpeg(tiff: nil)
        #expect(try JPEGFile(original).exifTIFF == nil)
        #expect(try ExifMetadata(jpeg: original) == ExifMetadata())
        let tagged = try ExifGPSWriter.write(Self.tags, into: original)
        let file = try JPEGFile(tagged)
        #expect(file.segments.map(\.marker).prefix(2) == [0xE0, 0xE1])
        try Self.expectOnlyExifChanged(original, tagged)
        let read = try ExifMetadata(jpeg: tagged)
        #expect(read.byteOrder == .bigEndian && read.captureTime == nil)
        Self.expectClose(read.gps, Self.tags)
        // And tagging it again keeps it one APP1 of the same size.
        #expect(try ExifGPSWriter.write(Self.tags, into: tagged) == tagged)
    }

    @Test func theSegmentsOfAJPEGComeBackByteForByte() throws {
        let original = try ExifFixture.jpeg(tiff: ExifFixture.tiff(.littleEndian))
        #expect(try JPEGFile(original).bytes == original)
        #expect(throws: ExifError.notJPEG) { try JPEGFile(Array("GIF89a".utf8)) }
        #expect(throws: ExifError.truncatedJPEG) { try JPEGFile(Array(original.prefix(30))) }
        #expect(throws: ExifError.notTIFF) { try TIFFBlock(Array("XX\0*\0\0\0\u{8}".utf8)) }
        // An IFD0 offset past the end of the block.
        #expect(throws: ExifError.directoryOutOfBounds(offset: 4096)) { try TIFFBlock([0x4D, 0x4D, 0, 0x2A, 0, 0, 0x10, 0]) }
    }

    @Test func exifThatWouldNotFitInASegmentIsRefused() throws {
        var tiff = ExifFixture.tiff(.bigEndian)
        tiff += [UInt8](repeating: 0, count: 65_400 - tiff.count)
        let original = try ExifFixture.jpeg(tiff: tiff)
        #expect(throws: ExifError.self) { try ExifGPSWriter.write(Self.tags, into: original) }
    }
}
