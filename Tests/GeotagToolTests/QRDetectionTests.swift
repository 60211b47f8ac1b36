import CustodianGeotag
import LinksService
import Testing
@testable import GeotagTool

/// The QR photo is found with libzbar in pixels decoded by libjpeg-turbo, from a code that libqrencode drew.
@Suite("QR photo detection")
struct QRDetectionTests {
    /// A photo-sized grey image with the QR code of `text` drawn into it: `moduleSize` pixels a module, on a
    /// mid-grey background with some texture, at (`x`, `y`).
    static func photo(_ text: String, width: Int = 1600, height: Int = 1200, moduleSize: Int = 8, x: Int = 300, y: Int = 200) throws -> GreyImage {
        let layout = QRLayout(code: try QRCode(encoding: text, errorCorrection: .Q), moduleSize: moduleSize, margin: 4)
        var pixels = (0..<width * height).map { UInt8(100 + ($0 % width + $0 / width) % 50) }
        for row in 0..<layout.pixelsPerSide {
            for column in 0..<layout.pixelsPerSide {
                let dark = layout.isDark(row: row / moduleSize, column: column / moduleSize)
                pixels[(y + row) * width + x + column] = dark ? 20 : 235
            }
        }
        return GreyImage(width: width, height: height, pixels: pixels)
    }

    @Test func theRouteQRCodeIsReadFromAJPEG() throws {
        let qr = RouteQRText(time: 1_764_000_000, nonce: try RouteNonce(text: "440C07BBCDF5F62699517C7EAC2C05EC"))
        let jpeg = try Self.photo(qr.text).jpeg(quality: 90)
        #expect(QRDecoder.decode(try GreyImage(jpeg: jpeg)) == [qr.text])
        let scan = PhotoScan(
            name: "qr.jpg",
            jpeg: try ExifGPSWriter.write(GPSTags(position: GeoPosition(latitude: 1, longitude: 2, altitude: nil), time: 0), into: jpeg))
        #expect(scan.routeQRCodes == [qr] && scan.problem == nil && scan.captureTime == nil)
    }

    @Test func largePhotosAreDecodedAtAReducedScaleAndStillRead() throws {
        let qr = RouteQRText(time: 1_764_000_000, nonce: try RouteNonce(text: "000102030405060708090A0B0C0D0E0F"))
        let jpeg = try Self.photo(qr.text, width: 5000, height: 3400, moduleSize: 24, x: 2000, y: 1000).jpeg(quality: 90)
        let decoded = try GreyImage(jpeg: jpeg)
        #expect(decoded.width == 2500 && decoded.height == 1700)
        #expect(QRDecoder.decode(decoded) == [qr.text])
    }

    @Test func otherQRCodesAndPlainPhotosGiveNoRouteCode() throws {
        let poster = try Self.photo("https://example.org/exhibition").jpeg(quality: 90)
        #expect(QRDecoder.decode(try GreyImage(jpeg: poster)) == ["https://example.org/exhibition"])
        #expect(PhotoScan(name: "poster.jpg", jpeg: poster).routeQRCodes.isEmpty)
        let plain = GreyImage(width: 320, height: 240, pixels: (0..<320 * 240).map { UInt8(truncatingIfNeeded: $0 / 320) })
        let scan = PhotoScan(name: "plain.jpg", jpeg: try plain.jpeg())
        #expect(scan.routeQRCodes.isEmpty && scan.problem == nil)
        #expect(PhotoScan(name: "text.jpg", jpeg: Array("not a photo".utf8)).problem == "not a JPEG file")
    }

    @Test func pixelsThatCannotBeDecodedDoNotStopGeotagging() throws {
        // Exif, then a scan without any frame header: the segments read, the pixels do not.
        let payload = Array("Exif\0\0".utf8) + ExifFixture.tiff(.bigEndian)
        let jpeg: [UInt8] =
            [0xFF, 0xD8, 0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
            + [0xFF, 0xDA, 0x00, 0x02, 0xFF, 0xD9]
        #expect(throws: JPEGCodecError.self) { try GreyImage(jpeg: jpeg) }
        let scan = PhotoScan(name: "odd.jpg", jpeg: jpeg)
        #expect(scan.problem == nil && scan.routeQRCodes.isEmpty)
        #expect(scan.captureTime == CaptureTime(wallClock: 1_764_000_005.5, utcOffset: 0))
    }
}
