import CustodianGeotag
import Testing
@testable import GeotagTool

@Suite("Camera clock correction")
struct TimeCorrectionTests {
    static let nonce = try! RouteNonce(text: "000102030405060708090A0B0C0D0E0F")

    @Test func exifTimesReadAsWallClockFields() throws {
        let civil = try #require(CivilTime(exif: "2025:11:24 16:00:05"))
        #expect(civil.seconds == 1_764_000_005)
        #expect(CivilTime(seconds: 1_764_000_005) == civil)
        #expect(civil.iso8601 == "2025-11-24T16:00:05Z" && civil.exifDate == "2025:11:24")
        #expect(CivilTime(exif: "    :  :     :  :  ") == nil)
        #expect(CivilTime(exif: "2025:13:24 16:00:05") == nil)
        #expect(CivilTime(exif: "2025-11-24") == nil)
        // Leap day, year ends, before 1970.
        #expect(CivilTime(exif: "2024:02:29 23:59:59")?.seconds == 1_709_251_199)
        #expect(CivilTime(seconds: 1_709_251_200) == CivilTime(year: 2024, month: 3, day: 1, hour: 0, minute: 0, second: 0))
        #expect(CivilTime(seconds: -1) == CivilTime(year: 1969, month: 12, day: 31, hour: 23, minute: 59, second: 59))
        for seconds: Int64 in [0, 951_782_400, 4_102_444_800, 1_764_000_005] {
            #expect(CivilTime(seconds: seconds).seconds == seconds)
        }
    }

    @Test func subSecondsAndOffsets() throws {
        let plain = try #require(CaptureTime(dateTime: "2025:11:24 16:00:05", subSeconds: "25", offset: nil))
        #expect(plain.wallClock == 1_764_000_005.25 && plain.utcOffset == nil && plain.cameraSeconds == 1_764_000_005.25)
        let east = try #require(CaptureTime(dateTime: "2025:11:24 18:00:05", subSeconds: nil, offset: "+02:00"))
        #expect(east.cameraSeconds == 1_764_000_005)
        let west = try #require(CaptureTime(dateTime: "2025:11:24 12:30:05", subSeconds: " ", offset: "-03:30"))
        #expect(west.cameraSeconds == 1_764_000_005)
        #expect(CaptureTime(dateTime: "2025:11:24 16:00:05", subSeconds: nil, offset: "   :  ")?.utcOffset == nil)
        #expect(CaptureTime(dateTime: nil, subSeconds: "5", offset: "+01:00") == nil)
    }

    @Test func theQRPhotoGivesTheOffsetForEveryPhoto() throws {
        // The camera runs 93 s slow and thinks it is in UTC; the QR code said 1764000100.
        let qrShot = CaptureTime(wallClock: 1_764_000_007)
        let correction = ClockCorrection(qrTime: 1_764_000_100, photographedAt: qrShot)
        #expect(correction.offset == 93)
        #expect(correction.correct(qrShot) == 1_764_000_100)
        #expect(correction.correct(CaptureTime(wallClock: 1_764_000_500.5)) == 1_764_000_593.5)
        // A camera set to local time with its offset recorded: the offset is taken off first, so a photo taken
        // after the zone setting changed (one hour further east) lands on the same clock.
        let local = ClockCorrection(qrTime: 1_764_000_100, photographedAt: CaptureTime(wallClock: 1_764_007_300, utcOffset: 7200))
        #expect(local.offset == 0)
        #expect(local.correct(CaptureTime(wallClock: 1_764_011_000, utcOffset: 10_800)) == 1_764_000_200)
    }

    @Test func findingTheQRPhoto() throws {
        let qr = RouteQRText(time: 1_764_000_100, nonce: Self.nonce)
        let plain = PhotoScan(name: "a.jpg", captureTime: CaptureTime(wallClock: 1_764_000_000))
        let code = PhotoScan(name: "qr.jpg", captureTime: CaptureTime(wallClock: 1_764_000_010), routeQRCodes: [qr])
        let found = try QRReference.find(in: [plain, code])
        #expect(found.photo == "qr.jpg" && found.qr == qr && found.correction.offset == 90)

        // The same route's code photographed again 20 s later (redrawn): the larger offset, the tighter bound.
        let again = PhotoScan(
            name: "qr2.jpg", captureTime: CaptureTime(wallClock: 1_764_000_032),
            routeQRCodes: [RouteQRText(time: 1_764_000_125, nonce: Self.nonce)])
        #expect(try QRReference.find(in: [code, again]).correction.offset == 93)

        #expect(throws: GeotagError.noQRPhoto(photos: 1)) { try QRReference.find(in: [plain]) }
        let other = PhotoScan(
            name: "other.jpg", captureTime: CaptureTime(wallClock: 0),
            routeQRCodes: [RouteQRText(time: 1, nonce: try RouteNonce(text: "FF0102030405060708090A0B0C0D0E0F"))])
        #expect(throws: GeotagError.severalRoutes([("qr.jpg", qr.text), ("other.jpg", "1-FF0102030405060708090A0B0C0D0E0F")])) {
            try QRReference.find(in: [code, other])
        }
        let undated = PhotoScan(name: "qr.jpg", captureTime: nil, routeQRCodes: [qr])
        #expect(throws: GeotagError.qrPhotoWithoutCaptureTime("qr.jpg")) { try QRReference.find(in: [plain, undated]) }
        #expect(throws: GeotagError.qrPhotosDisagree("qr.jpg", "late.jpg", seconds: 110)) {
            _ = try QRReference.find(in: [code, PhotoScan(name: "late.jpg", captureTime: CaptureTime(wallClock: 1_763_999_900), routeQRCodes: [qr])])
        }
    }

    @Test func thePlanSaysWhyAPhotoIsSkipped() {
        let route = RouteInterpolator(
            tracks: Tracks([
                [
                    Fix(latitude: 52, longitude: 5, altitude: 1, accuracy: 5, time: 1_764_000_000),
                    Fix(latitude: 52.001, longitude: 5, altitude: 2, accuracy: 5, time: 1_764_000_010),
                    Fix(latitude: 52.002, longitude: 5, altitude: 3, accuracy: 5, time: 1_764_001_000),
                ]
            ]), maxGap: 300)
        let plan = GeotagPlan.plan(
            [
                PhotoScan(name: "in.jpg", captureTime: CaptureTime(wallClock: 1_763_999_995)),
                PhotoScan(name: "early.jpg", captureTime: CaptureTime(wallClock: 1_763_999_000)),
                PhotoScan(name: "late.jpg", captureTime: CaptureTime(wallClock: 1_764_002_000)),
                PhotoScan(name: "gap.jpg", captureTime: CaptureTime(wallClock: 1_764_000_400)),
                PhotoScan(name: "undated.jpg", captureTime: nil),
                PhotoScan(name: "broken.jpg", captureTime: nil, problem: "not a JPEG file"),
            ], correction: ClockCorrection(offset: 10), route: route)
        guard case .tag(let tags) = plan[0].action else { Issue.record("in.jpg is not tagged: \(plan[0])"); return }
        #expect(abs(tags.position.latitude - 52.0005) < 1e-9 && tags.position.longitude == 5 && abs(tags.position.altitude! - 1.5) < 1e-9)
        #expect(tags.time == 1_764_000_005 && plan[0].correctedTime == 1_764_000_005)
        #expect(
            plan[1]
                == PlannedPhoto(
                    name: "early.jpg", correctedTime: 1_763_999_010,
                    action: .skip("before the route, which starts at 2025-11-24T16:00:00Z")))
        #expect(plan[2].action == .skip("after the route, which ends at 2025-11-24T16:16:40Z"))
        #expect(plan[3].action == .skip("in a 990 s gap between fixes (2025-11-24T16:00:10Z to 2025-11-24T16:16:40Z; --max-gap is 300 s)"))
        #expect(
            plan[4] == PlannedPhoto(name: "undated.jpg", correctedTime: nil, action: .skip("no capture time (Exif DateTimeOriginal or DateTime)")))
        #expect(plan[5].action == .skip("not a JPEG file"))
    }

    @Test func withExtrapolationThePlanTagsPhotosNearTheEndsAndSaysSoOfTheOthers() throws {
        let route = RouteInterpolator(
            tracks: Tracks([
                [
                    Fix(latitude: 52, longitude: 5, altitude: 1, accuracy: 5, time: 1_764_000_000),
                    Fix(latitude: 52.001, longitude: 5, altitude: 2, accuracy: 5, time: 1_764_000_010),
                ]
            ]), maxGap: 300, maxExtrapolation: 120)
        let plan = GeotagPlan.plan(
            [
                PhotoScan(name: "start.jpg", captureTime: CaptureTime(wallClock: 1_763_999_890)),
                PhotoScan(name: "end.jpg", captureTime: CaptureTime(wallClock: 1_764_000_120)),
                PhotoScan(name: "early.jpg", captureTime: CaptureTime(wallClock: 1_763_999_860)),
                PhotoScan(name: "late.jpg", captureTime: CaptureTime(wallClock: 1_764_000_140)),
            ], correction: ClockCorrection(offset: 10), route: route)
        #expect(plan[0].action == .tag(GPSTags(position: GeoPosition(latitude: 52, longitude: 5, altitude: 1), time: 1_763_999_900)))
        #expect(plan[1].action == .tag(GPSTags(position: GeoPosition(latitude: 52.001, longitude: 5, altitude: 2), time: 1_764_000_130)))
        #expect(plan[2].action == .skip("before the route, which starts at 2025-11-24T16:00:00Z; --extrapolate is 120 s"))
        #expect(plan[3].action == .skip("after the route, which ends at 2025-11-24T16:00:10Z; --extrapolate is 120 s"))
    }
}
