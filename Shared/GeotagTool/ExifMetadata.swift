/// What `custodian geotag` reads from a photo's Exif data: the capture time, the camera that took it, and the
/// GPS tags (so that tests and the summary can read back what was written).
public struct ExifMetadata: Sendable, Equatable {
    public var captureTime: CaptureTime?
    /// Make, Model and BodySerialNumber; nil when the photo names none of them.
    public var camera: CameraBody?
    public var gps: GPSTags?
    /// The TIFF block's byte order; nil without Exif data.
    public var byteOrder: TIFFByteOrder?

    // Exif 2.32 tags, IFD0 and Exif IFD.
    static let dateTime: UInt16 = 0x0132
    static let dateTimeOriginal: UInt16 = 0x9003
    static let offsetTime: UInt16 = 0x9010
    static let offsetTimeOriginal: UInt16 = 0x9011
    static let subSecTime: UInt16 = 0x9290
    static let subSecTimeOriginal: UInt16 = 0x9291
    static let make: UInt16 = 0x010F
    static let model: UInt16 = 0x0110
    static let bodySerialNumber: UInt16 = 0xA431

    /// A JPEG without Exif data has no metadata; one whose Exif data are not TIFF is an error.
    public init(jpeg: [UInt8]) throws(ExifError) {
        if let tiff = try JPEGFile(jpeg).exifTIFF {
            self.init(block: try TIFFBlock(tiff))
        } else {
            self.init()
        }
    }

    init() {}

    init(block: TIFFBlock) {
        byteOrder = block.order
        let exif = block.subdirectory(TIFFBlock.exifIFDPointer) ?? []
        func text(_ tag: UInt16, in entries: [TIFFEntry]) -> String? {
            entries.first { $0.tag == tag }?.text
        }
        // DateTimeOriginal is when the shutter fired; DateTime (when the file was last changed) is the fallback.
        captureTime =
            CaptureTime(
                dateTime: text(Self.dateTimeOriginal, in: exif), subSeconds: text(Self.subSecTimeOriginal, in: exif),
                offset: text(Self.offsetTimeOriginal, in: exif))
            ?? CaptureTime(
                dateTime: text(Self.dateTime, in: block.ifd0), subSeconds: text(Self.subSecTime, in: exif),
                offset: text(Self.offsetTime, in: exif))
        camera = CameraBody(
            make: text(Self.make, in: block.ifd0), model: text(Self.model, in: block.ifd0),
            serial: text(Self.bodySerialNumber, in: exif))
        if let entries = block.subdirectory(TIFFBlock.gpsIFDPointer) {
            gps = Self.gps(entries, order: block.order)
        }
    }

    static func gps(_ entries: [TIFFEntry], order: TIFFByteOrder) -> GPSTags? {
        func entry(_ tag: UInt16) -> TIFFEntry? { entries.first { $0.tag == tag } }
        func angle(_ tag: UInt16, negative: String, reference: UInt16) -> Double? {
            guard let parts = entry(tag)?.rationals(order), parts.allSatisfy({ $0 != nil }),
                let value = GPSRational.degrees(parts.compactMap { $0 })
            else { return nil }
            return entry(reference)?.text == negative ? -value : value
        }
        guard let latitude = angle(GPSTags.Tag.latitude, negative: "S", reference: GPSTags.Tag.latitudeRef),
            let longitude = angle(GPSTags.Tag.longitude, negative: "W", reference: GPSTags.Tag.longitudeRef)
        else { return nil }
        var altitude = entry(GPSTags.Tag.altitude)?.rationals(order)?.first ?? nil
        if let metres = altitude, entry(GPSTags.Tag.altitudeRef)?.value.first == 1 { altitude = -metres }
        var time = 0.0
        if let date = entry(GPSTags.Tag.dateStamp)?.text, let day = CivilTime(exif: date + " 00:00:00"),
            let parts = entry(GPSTags.Tag.timeStamp)?.rationals(order), parts.count == 3
        {
            let clock = parts.compactMap { $0 }
            if clock.count == 3 { time = Double(day.seconds) + clock[0] * 3600 + clock[1] * 60 + clock[2] }
        }
        return GPSTags(position: GeoPosition(latitude: latitude, longitude: longitude, altitude: altitude), time: time)
    }
}
