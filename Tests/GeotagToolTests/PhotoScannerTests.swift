import CustodianGeotag
import Foundation
import Synchronization
import Testing
@testable import GeotagTool

/// The first pass over a folder: which photos are decoded, at which scale, how many at once, and what it reports.
@Suite("Scanning the photos")
struct PhotoScannerTests {
    static let qr = RouteQRText(time: 1_764_000_000, nonce: try! RouteNonce(text: "440C07BBCDF5F62699517C7EAC2C05EC"))

    struct Missing: Error {}

    /// How many reads run at once, and the most there were.
    final class Concurrency: Sendable {
        let state = Mutex((now: 0, most: 0))
    }

    /// A 2000 × 1300 photo (the first pass reads it at 1/2, 1000 pixels wide; the next at full size), dated unless
    /// `dated` is false, with the route's code drawn at `moduleSize` pixels a module, or none.
    static func photo(moduleSize: Int?, dated: Bool = true, seed: Int = 0) throws -> [UInt8] {
        let image =
            if let moduleSize {
                try QRDetectionTests.photo(qr.text, width: 2000, height: 1300, moduleSize: moduleSize, x: 200, y: 150)
            } else {
                GreyImage(width: 2000, height: 1300, pixels: (0..<2000 * 1300).map { UInt8(100 + ($0 % 2000 * (seed + 1) + $0 / 2000) % 50) })
            }
        return try ExifFixture.jpeg(image, tiff: dated ? ExifFixture.tiff(.bigEndian) : nil)
    }

    static func scan(_ files: [(String, [UInt8])], parallelism: Int = 2) async -> [PhotoScan] {
        let byName = Dictionary(uniqueKeysWithValues: files)
        return await PhotoScanner.scan(files.map(\.0), parallelism: parallelism) { name in
            guard let bytes = byName[name] else { throw Missing() }
            return bytes
        }
    }

    @Test func aScaledDownDecodeRoundsItsSidesUp() throws {
        let jpeg = try GreyImage(width: 1001, height: 601, pixels: [UInt8](repeating: 128, count: 1001 * 601)).jpeg()
        #expect(try GreyImage.size(of: jpeg) == (1001, 601))
        for (denominator, width, height) in [(1, 1001, 601), (2, 501, 301), (4, 251, 151), (8, 126, 76)] {
            let image = try GreyImage(jpeg: jpeg, denominator: denominator)
            #expect(image.width == width && image.height == height)
        }
        #expect(GreyImage.denominator(width: 6000, height: 4000, longerSide: 1000) == 4)
        #expect(GreyImage.denominator(width: 8192, height: 5464, longerSide: 1000) == 8)
        #expect(GreyImage.denominator(width: 4000, height: 3000, longerSide: 2048) == 1)
        #expect(GreyImage.denominator(width: 6000, height: 4000, longerSide: 2048) == 2)
        #expect(GreyImage.denominator(width: 6000, height: 4000, longerSide: .max) == 1)
    }

    @Test func aCodeReadableAtTheSmallScaleSparesEveryPhotoTheLargerOnes() async throws {
        let scans = await Self.scan([
            ("a.jpg", try Self.photo(moduleSize: nil)), ("qr.jpg", try Self.photo(moduleSize: 8)),
            ("b.jpg", try Self.photo(moduleSize: nil, seed: 1)),
        ])
        #expect(scans.map(\.name) == ["a.jpg", "qr.jpg", "b.jpg"])
        #expect(scans.map(\.searchedDenominators) == [[2], [2], [2]])
        #expect(scans[1].routeQRCodes == [Self.qr] && scans[0].routeQRCodes.isEmpty && scans[2].routeQRCodes.isEmpty)
        #expect(scans.allSatisfy { $0.captureTime == CaptureTime(wallClock: 1_764_000_005.5, utcOffset: 0) && $0.problem == nil })
    }

    @Test func aCodeTooSmallForTheSmallScaleIsFoundAtFullSize() async throws {
        // One pixel a module: half a pixel at half size, which zbar cannot read.
        let small = try Self.photo(moduleSize: 1)
        #expect(QRDecoder.decode(try GreyImage(jpeg: small, denominator: 2)).isEmpty)
        let scans = await Self.scan([("a.jpg", try Self.photo(moduleSize: nil)), ("qr.jpg", small)])
        #expect(scans.map(\.searchedDenominators) == [[2, 1], [2, 1]])
        #expect(scans[1].routeQRCodes == [Self.qr])
        #expect(try QRReference.find(in: scans).photo == "qr.jpg")
    }

    @Test func photosWithoutACaptureTimeAreDecodedOnlyWhenNoOtherShowsTheCode() async throws {
        let undatedCode = try Self.photo(moduleSize: 8, dated: false)
        // A dated photo shows the code: the undated one is not even decoded, and is no error.
        let spared = await Self.scan([("qr.jpg", try Self.photo(moduleSize: 8)), ("undated.jpg", undatedCode)])
        #expect(spared[1].searchedDenominators.isEmpty && spared[1].routeQRCodes.isEmpty && spared[1].captureTime == nil)
        #expect(try QRReference.find(in: spared).photo == "qr.jpg")
        // None does: the undated photos are searched too, so the error says what is wrong with the QR photo.
        let fallback = await Self.scan([("a.jpg", try Self.photo(moduleSize: nil)), ("undated.jpg", undatedCode)])
        #expect(fallback[0].searchedDenominators == [2, 1])
        #expect(fallback[1].searchedDenominators == [2] && fallback[1].routeQRCodes == [Self.qr])
        #expect(throws: GeotagError.qrPhotoWithoutCaptureTime("undated.jpg")) { try QRReference.find(in: fallback) }
    }

    @Test func unreadableAndBrokenPhotosAreReportedNotDecoded() async throws {
        let scans =
            await Self.scan([("text.jpg", Array("not a photo".utf8)), ("qr.jpg", try Self.photo(moduleSize: 8))])
            + (await PhotoScanner.scan(["gone.jpg"]) { _ in throw Missing() })
        #expect(scans[0].problem == "not a JPEG file" && scans[0].searchedDenominators.isEmpty)
        #expect(scans[2].problem == "cannot read it" && scans[2].name == "gone.jpg")
    }

    /// Reads that each wait until `count` of them have begun: they finish only when that many run at once (or
    /// after the deadline, which only guards the test against hanging).
    final class Rendezvous: @unchecked Sendable {
        private let condition = NSCondition()
        private var arrived = 0

        func arriveAndWait(for count: Int) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            arrived += 1
            condition.broadcast()
            let deadline = Date().addingTimeInterval(60)
            while arrived < count, condition.wait(until: deadline) {}
            return arrived >= count
        }
    }

    @Test(.enabled(if: ProcessInfo.processInfo.activeProcessorCount >= 2))
    func photosAreScannedSeveralAtATime() async throws {
        let plain = try Self.photo(moduleSize: nil)
        let rendezvous = Rendezvous()
        let met = Mutex<[Bool]>([])
        let scans = await PhotoScanner.scan(["a.jpg", "b.jpg"], parallelism: 2) { _ in
            let together = rendezvous.arriveAndWait(for: 2)
            met.withLock { $0.append(together) }
            return plain
        }
        #expect(scans.map(\.name) == ["a.jpg", "b.jpg"])
        // Both reads of the first pass, and of the larger one after it, met.
        #expect(met.withLock { $0 } == [true, true, true, true])
    }

    @Test(arguments: [1, 3])
    func atMostParallelismPhotosAtATimeInTheirOrderWithProgressForEach(parallelism: Int) async throws {
        let plain = try Self.photo(moduleSize: nil)
        let names = (1...7).map { "DSC\($0).JPG" }
        let running = Concurrency()
        var events: [PhotoScanner.Progress] = []
        let scans = await PhotoScanner.scan(
            names, parallelism: parallelism,
            read: { _ in
                running.state.withLock {
                    $0.now += 1; $0.most = max($0.most, $0.now)
                }
                defer { running.state.withLock { $0.now -= 1 } }
                return plain
            }, progress: { events.append($0) })
        #expect(scans.map(\.name) == names)
        #expect(running.state.withLock { $0.most } <= parallelism)
        // The first pass, then the larger one (no photo shows a code): every photo once in each.
        let first = events.filter { $0.phase == .photos }, larger = events.filter { $0.phase == .larger }
        #expect(first.map(\.done) == Array(1...7) && first.allSatisfy { $0.total == 7 })
        #expect(Set(first.map(\.photo)) == Set(names) && Set(larger.map(\.photo)) == Set(names))
        #expect(events.count == 14 && !events.contains { $0.phase == .undated })
        #expect(PhotoScanner.Progress(phase: .photos, done: 12, total: 21, photo: "DSC0012.JPG").text == "scanning 12/21 photos (DSC0012.JPG)")
        #expect(
            PhotoScanner.Progress(phase: .larger, done: 3, total: 20, photo: "DSC0003.JPG").text
                == "scanning 3/20 photos at a larger scale (DSC0003.JPG)")
    }
}
