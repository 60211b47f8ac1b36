/// A JPEG file cut into its marker segments up to the start of scan, and everything from there on (the
/// entropy-coded data and any later markers) as one opaque tail. Writing it back gives the same bytes, except
/// for the segments one replaced: geotagging touches the Exif APP1 and nothing else.
public struct JPEGFile: Sendable {
    public struct Segment: Sendable, Equatable {
        public var marker: UInt8
        /// The bytes after the length field.
        public var payload: [UInt8]
    }

    public var segments: [Segment]
    /// From the SOS marker (0xFFDA) to the end of the file, byte for byte.
    public var tail: [UInt8]

    static let app0: UInt8 = 0xE0
    static let app1: UInt8 = 0xE1
    static let startOfScan: UInt8 = 0xDA
    /// "Exif\0\0", which starts an Exif APP1's payload (an XMP APP1 starts otherwise).
    static let exifSignature: [UInt8] = Array("Exif".utf8) + [0, 0]
    /// The length field counts itself: a payload has at most 65535 - 2 bytes.
    static let maximumPayload = 65533

    public init(_ bytes: [UInt8]) throws(ExifError) {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { throw .notJPEG }
        var segments: [Segment] = []
        var position = 2
        while true {
            guard position + 2 <= bytes.count, bytes[position] == 0xFF else { throw .truncatedJPEG }
            var markerAt = position + 1
            // Any number of 0xFF may pad before a marker (ITU T.81, B.1.1.2).
            while markerAt < bytes.count, bytes[markerAt] == 0xFF { markerAt += 1 }
            guard markerAt < bytes.count else { throw .truncatedJPEG }
            let marker = bytes[markerAt]
            if marker == Self.startOfScan || marker == 0xD9 {
                self.segments = segments
                self.tail = Array(bytes[position...])
                return
            }
            guard markerAt + 3 <= bytes.count else { throw .truncatedJPEG }
            let length = Int(bytes[markerAt + 1]) << 8 | Int(bytes[markerAt + 2])
            let end = markerAt + 1 + length
            guard length >= 2, end <= bytes.count else { throw .truncatedJPEG }
            segments.append(Segment(marker: marker, payload: Array(bytes[markerAt + 3..<end])))
            position = end
        }
    }

    public var bytes: [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        for segment in segments {
            let length = segment.payload.count + 2
            out += [0xFF, segment.marker, UInt8(length >> 8), UInt8(length & 0xFF)]
            out += segment.payload
        }
        return out + tail
    }

    /// The TIFF block of the first Exif APP1, if there is one.
    public var exifTIFF: [UInt8]? {
        segments.first(where: Self.isExif).map { Array($0.payload.dropFirst(Self.exifSignature.count)) }
    }

    /// Replaces the Exif APP1's TIFF block, or adds an Exif APP1 where readers look for it: right after SOI,
    /// or after a leading JFIF APP0 (which JFIF requires to come first).
    public mutating func setExifTIFF(_ tiff: [UInt8]) throws(ExifError) {
        let payload = Self.exifSignature + tiff
        guard payload.count <= Self.maximumPayload else { throw .exifTooLarge(bytes: payload.count) }
        let segment = Segment(marker: Self.app1, payload: payload)
        if let index = segments.firstIndex(where: Self.isExif) {
            segments[index] = segment
        } else {
            let index = segments.first?.marker == Self.app0 ? 1 : 0
            segments.insert(segment, at: index)
        }
    }

    static func isExif(_ segment: Segment) -> Bool {
        segment.marker == app1 && segment.payload.starts(with: exifSignature)
    }
}
