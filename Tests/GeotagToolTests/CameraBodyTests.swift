import Testing
@testable import GeotagTool

@Suite("Camera bodies")
struct CameraBodyTests {
    static func scans(_ bodies: [(CameraBody?, Int)]) -> [PhotoScan] {
        var number = 0
        return bodies.flatMap { body, count in
            (0..<count).map { _ in
                number += 1
                return PhotoScan(name: "IMG_\(number).JPG", captureTime: CaptureTime(wallClock: Double(number)), camera: body)
            }
        }
    }

    static let r5 = CameraBody(make: "Canon", model: "Canon EOS R5", serial: "083021001234")
    static let r5Spare = CameraBody(make: "Canon", model: "Canon EOS R5", serial: "083021009999")
    static let nikon = CameraBody(make: "NIKON CORPORATION", model: "NIKON Z 6_2", serial: nil)

    @Test func makeModelAndSerialAreReadFromExif() throws {
        let jpeg = try ExifFixture.jpeg(tiff: ExifFixture.tiff(.littleEndian, make: "SONY", model: "ILCE-7M3", serial: "3321456"))
        let camera = try #require(try ExifMetadata(jpeg: jpeg).camera)
        #expect(camera == CameraBody(make: "SONY", model: "ILCE-7M3", serial: "3321456"))
        #expect(camera.description == "SONY ILCE-7M3 (serial 3321456)")
        #expect(try ExifMetadata(jpeg: ExifFixture.jpeg(tiff: ExifFixture.tiff(.bigEndian))).camera?.serial == nil)
        #expect(try ExifMetadata(jpeg: ExifFixture.jpeg(tiff: nil)).camera == nil)
        // The make is not repeated when the model starts with it; blanks are no name.
        #expect(Self.r5?.description == "Canon EOS R5 (serial 083021001234)" && Self.nikon?.description == "NIKON Z 6_2")
        #expect(CameraBody(make: "  ", model: "", serial: nil) == nil)
    }

    @Test func oneCameraOrNoneNamedGivesNoWarning() {
        #expect(CameraBodies.warning(Self.scans([(Self.r5, 5)]), qrPhoto: "IMG_1.JPG") == nil)
        #expect(CameraBodies.warning(Self.scans([(Self.r5, 5), (nil, 2)]), qrPhoto: "IMG_1.JPG") == nil)
        // A photo without the serial (edited by a program that dropped it) is the one R5 that has one.
        let edited = Self.scans([(Self.r5, 3), (CameraBody(make: "Canon", model: "Canon EOS R5", serial: nil), 2)])
        #expect(CameraBodies.count(edited) == [CameraBodies.Count(body: Self.r5!, photos: 5)])
        #expect(CameraBodies.warning(edited, qrPhoto: "IMG_1.JPG") == nil)
    }

    @Test func severalCamerasAreNamedWithTheirPhotosAndTheQRPhotosCamera() {
        let scans = Self.scans([(Self.nikon, 7), (Self.r5, 14)])
        #expect(
            CameraBodies.warning(scans, qrPhoto: "IMG_9.JPG") == """
                Warning: these photos come from 2 cameras, whose clocks differ:
                  Canon EOS R5 (serial 083021001234)  14 photos
                  NIKON Z 6_2                          7 photos
                The QR photo IMG_9.JPG was taken with the Canon EOS R5 (serial 083021001234). Its clock correction fits that camera's photos only:
                the other camera's photos may be placed far from where they were taken.
                Run custodian geotag once per camera, on a folder of that camera's photos with a photo of the QR code taken with it.
                """)
    }

    @Test func twoBodiesOfOneModelAreTwoCameras() {
        // Photos without the serial cannot be told apart then: they are a third.
        let scans = Self.scans([(Self.r5, 1), (Self.r5Spare, 2), (CameraBody(make: "Canon", model: "Canon EOS R5", serial: nil), 1), (nil, 3)])
        #expect(CameraBodies.count(scans).map(\.photos) == [2, 1, 1])
        #expect(
            CameraBodies.warning(scans, qrPhoto: "IMG_5.JPG") == """
                Warning: these photos come from 3 cameras, whose clocks differ:
                  Canon EOS R5 (serial 083021009999)  2 photos
                  Canon EOS R5 (serial 083021001234)   1 photo
                  Canon EOS R5                         1 photo
                  no camera named in Exif             3 photos
                The QR photo IMG_5.JPG names no camera. Its clock correction fits one camera's photos at most:
                the others may be placed far from where they were taken.
                Run custodian geotag once per camera, on a folder of that camera's photos with a photo of the QR code taken with it.
                """)
    }
}
