import CustodianGeotag
import Foundation
import GeotagClient
import GeotagTool
import LinksService
import NIOSSL
import Testing

extension PlatformTests {
    /// `custodian geotag` end to end: a route stored as the app stores it, real JPEGs (one of them a photo of the
    /// QR code libqrencode drew), capture times set by exiftool, and the written tags read back by exiftool.
    @Suite("custodian geotag: QR photo → route → Exif GPS", .serialized)
    struct GeotagCommand {
        static let passphrase = "Tour of Utrecht"
        /// Route time of the first fix.
        static let start: Double = 1_764_000_000
        /// The camera's clock is 1 h 2 min 3 s behind the phone's, and set to no zone.
        static let cameraLag: Double = 3723

        /// Track 1: a fix every 10 s for two minutes. A 19-minute pause. Track 2: three fixes, the last two 400 s
        /// apart (longer than the default --max-gap), below sea level as much of Utrecht's province is.
        static let tracks = Tracks([
            (0...12).map { step in
                let t = Double(step)
                return Fix(
                    latitude: 52.0907 + 0.0001 * t, longitude: 5.1214 + 0.00015 * t + 0.00001 * t * t, altitude: 4.5 + 0.3 * t,
                    accuracy: 5, time: start + 10 * t)
            },
            [
                Fix(latitude: 52.1, longitude: 5.2, altitude: -1.5, accuracy: 5, time: start + 1260),
                Fix(latitude: 52.1004, longitude: 5.2008, altitude: -2.5, accuracy: 5, time: start + 1280),
                Fix(latitude: 52.11, longitude: 5.21, altitude: -3, accuracy: 5, time: start + 1680),
            ],
        ])

        struct Stored {
            var routeID: String
            var nonce: RouteNonce
            var key: String
            var secret: String
        }

        /// A route sealed and stored through the API as the app does, by a consumer the admin API created.
        static func storeRoute(passphrase: String = passphrase) async throws -> Stored {
            let platform = try platform
            let consumer = try await Geotag.consumer("DSLR Geotag app")
            let nonce = RouteNonce.random()
            let client = try RouteStoreClient(
                server: platform.baseURL, key: consumer.key, secret: consumer.secret,
                tls: {
                    var tls = TLSConfiguration.makeClientConfiguration(); tls.certificateVerification = .none; return tls
                }())
            let stored = try await client.store(try RouteSealer.seal(tracks: tracks, passphrase: passphrase, nonce: nonce), lookupID: nonce.lookupID)
            return Stored(routeID: stored.routeID, nonce: nonce, key: consumer.key, secret: consumer.secret)
        }

        // MARK: Photos

        /// A textured grey "photo"; with `qr`, the QR code of that text drawn big in it (10-pixel modules).
        static func photo(qr: String? = nil, seed: Int = 0) throws -> [UInt8] {
            let (width, height) = (1200, 900)
            var pixels = (0..<width * height).map { UInt8(60 + ($0 % width * (seed + 1) + $0 / width * 3) % 120) }
            if let qr {
                let layout = QRLayout(code: try QRCode(encoding: qr, errorCorrection: .Q), moduleSize: 10, margin: 4)
                for row in 0..<layout.pixelsPerSide {
                    for column in 0..<layout.pixelsPerSide {
                        pixels[(200 + row) * width + 350 + column] = layout.isDark(row: row / 10, column: column / 10) ? 15 : 240
                    }
                }
            }
            return try GreyImage(width: width, height: height, pixels: pixels).jpeg(quality: 92)
        }

        /// The camera's DateTimeOriginal for a photo taken at `routeTime`.
        static func cameraTime(_ routeTime: Double) -> String {
            let civil = CivilTime(seconds: Int64(routeTime - cameraLag))
            return civil.exifDate + " " + civil.iso8601.dropFirst(11).dropLast()
        }

        static func exiftool(_ arguments: [String]) async throws -> (status: Int32, output: String) {
            guard let exiftool = ["/usr/bin/exiftool", "/usr/local/bin/exiftool"].first(where: { FileManager.default.isExecutableFile(atPath: $0) })
            else {
                throw PlatformError("exiftool is not installed; install libimage-exiftool-perl (Deploy/dev/install-dependencies.sh --tests does)")
            }
            return try await RunningPlatform.run(exiftool, arguments)
        }

        /// Writes a photo into `folder` with its capture time set by exiftool (`nil`: none), in the byte order given.
        static func addPhoto(
            _ name: String, in folder: String, qr: String? = nil, seed: Int = 0, routeTime: Double?, littleEndian: Bool = false
        ) async throws {
            let path = folder + "/" + name
            try Data(try photo(qr: qr, seed: seed)).write(to: URL(fileURLWithPath: path))
            guard let routeTime else { return }
            var arguments = ["-q", "-overwrite_original", "-DateTimeOriginal=\(cameraTime(routeTime))", "-Make=Custodian", "-Model=DSLR test"]
            if littleEndian { arguments.append("-ExifByteOrder=Little-endian") }
            let set = try await exiftool(arguments + [path])
            #expect(set.status == 0, "\(set.output)")
        }

        static func folder() throws -> String {
            let folder = NSTemporaryDirectory() + "cit-geotag-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            return folder
        }

        static func contents(_ folder: String) throws -> [String: Data] {
            var files: [String: Data] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
                files[name] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
            }
            return files
        }

        /// exiftool's reading of every photo in `folder`, numbers as numbers, by file name.
        static func readBack(_ folder: String) async throws -> [String: [String: Any]] {
            let read = try await exiftool(["-q", "-n", "-j", "-a", "-GPS:all", "-DateTimeOriginal", "-Make", "-ImageWidth", "-ImageHeight", folder])
            #expect(read.status == 0, "\(read.output)")
            let array = try #require(try JSONSerialization.jsonObject(with: Data(read.output.utf8)) as? [[String: Any]])
            var byName: [String: [String: Any]] = [:]
            for photo in array {
                byName[((photo["SourceFile"] as? String ?? "") as NSString).lastPathComponent] = photo
            }
            return byName
        }

        static func geotag(
            _ folder: String, _ stored: Stored, _ extra: [String] = [], passphrase: String = passphrase,
            server: String? = nil
        ) async throws -> (status: Int32, output: String) {
            try await platform.custodian(
                [
                    "geotag", folder, "--passphrase", passphrase, "--server", server ?? platform.baseURL,
                    "--key", stored.key, "--secret", stored.secret, "--insecure",
                ] + extra)
        }

        /// Metres between two points (equirectangular: exact enough over a few metres).
        static func metres(_ latitude: Double, _ longitude: Double, _ expected: GeoPosition) -> Double {
            let north = (latitude - expected.latitude) * 111_320
            let east = (longitude - expected.longitude) * 111_320 * cos(expected.latitude * .pi / 180)
            return (north * north + east * east).squareRoot()
        }

        static func expected(_ routeTime: Double) throws -> GeoPosition {
            guard case .position(let position) = RouteInterpolator(tracks: tracks, maxGap: 300).position(at: routeTime) else {
                throw PlatformError("no position at \(routeTime)")
            }
            return position
        }

        // MARK: Tests

        @Test func geotagsThePhotosOfAFolderInPlaceAndLeavesTheOthersUntouched() async throws {
            let stored = try await Self.storeRoute()
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let qr = RouteQRText(time: Int64(Self.start) + 30, nonce: stored.nonce)
            // Route times of the photos that fall on the route.
            let onRoute: [String: Double] = [
                "IMG_0001.jpg": Self.start + 30,  // the QR photo, at a fix
                "IMG_0002.jpg": Self.start + 47,  // between two fixes of track 1
                "IMG_0003.JPG": Self.start + 1270,  // track 2, little-endian Exif
                "IMG_0004.jpeg": Self.start + 120,  // the last fix of track 1
            ]
            try await Self.addPhoto("IMG_0001.jpg", in: folder, qr: qr.text, routeTime: onRoute["IMG_0001.jpg"])
            try await Self.addPhoto("IMG_0002.jpg", in: folder, seed: 1, routeTime: onRoute["IMG_0002.jpg"])
            try await Self.addPhoto("IMG_0003.JPG", in: folder, seed: 2, routeTime: onRoute["IMG_0003.JPG"], littleEndian: true)
            try await Self.addPhoto("IMG_0004.jpeg", in: folder, seed: 3, routeTime: onRoute["IMG_0004.jpeg"])
            try await Self.addPhoto("early.jpg", in: folder, seed: 4, routeTime: Self.start - 100)
            try await Self.addPhoto("pause.jpg", in: folder, seed: 5, routeTime: Self.start + 600)
            try await Self.addPhoto("gap.jpg", in: folder, seed: 6, routeTime: Self.start + 1480)
            try await Self.addPhoto("late.jpg", in: folder, seed: 7, routeTime: Self.start + 7200)
            try await Self.addPhoto("undated.jpg", in: folder, seed: 8, routeTime: nil)
            try "not a photo".write(toFile: folder + "/notes.txt", atomically: true, encoding: .utf8)
            let before = try Self.contents(folder)

            let run = try await Self.geotag(folder, stored)
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.contains("QR code        \(qr.text) in IMG_0001.jpg"), "\(run.output)")
            #expect(run.output.contains("camera clock   3723 s behind"))
            #expect(run.output.contains("route          \(stored.routeID): 2 tracks, 16 fixes, 2025-11-24T16:00:00Z to 2025-11-24T16:28:00Z"))
            #expect(run.output.contains("4 photos geotagged, 5 skipped"))
            let lines = run.output.split(separator: "\n").map(String.init)
            func row(_ name: String) -> String { lines.first { $0.hasPrefix(name + " ") } ?? "" }
            #expect(row("IMG_0002.jpg").contains("2025-11-24T16:00:47Z"), "\(run.output)")
            #expect(row("early.jpg").contains("skipped: before the route, which starts at 2025-11-24T16:00:00Z"))
            #expect(row("pause.jpg").contains("skipped: in a 1140 s gap between tracks"))
            #expect(row("gap.jpg").contains("skipped: in a 400 s gap between fixes"))
            #expect(row("late.jpg").contains("skipped: after the route, which ends at 2025-11-24T16:28:00Z"))
            #expect(row("undated.jpg").contains("skipped: no capture time"))

            let after = try Self.contents(folder)
            for name in ["early.jpg", "pause.jpg", "gap.jpg", "late.jpg", "undated.jpg", "notes.txt"] {
                #expect(after[name] == before[name], "\(name) changed")
            }
            let read = try await Self.readBack(folder)
            for (name, routeTime) in onRoute {
                let photo = try #require(read[name], "\(name)")
                let expected = try Self.expected(routeTime)
                let latitude = try #require(photo["GPSLatitude"] as? Double), longitude = try #require(photo["GPSLongitude"] as? Double)
                #expect(photo["GPSLatitudeRef"] as? String == "N" && photo["GPSLongitudeRef"] as? String == "E")
                #expect(Self.metres(latitude, longitude, expected) < 1, "\(name): \(latitude), \(longitude) vs \(expected)")
                let altitude = try #require(photo["GPSAltitude"] as? Double)
                let sign = (photo["GPSAltitudeRef"] as? Int) == 1 ? -1.0 : 1.0
                #expect(abs(sign * altitude - expected.altitude!) < 0.01, "\(name): altitude \(sign * altitude) vs \(expected.altitude!)")
                #expect(photo["GPSVersionID"] as? String == "2 3 0 0")
                let date = CivilTime(seconds: Int64(routeTime))
                #expect(photo["GPSDateStamp"] as? String == date.exifDate)
                #expect(photo["GPSTimeStamp"] as? String == String(date.iso8601.dropFirst(11).dropLast()), "\(photo["GPSTimeStamp"] ?? "none")")
                // Everything else is as it was: the other tags, the segments, the image data.
                #expect(photo["DateTimeOriginal"] as? String == Self.cameraTime(routeTime) && photo["Make"] as? String == "Custodian")
                #expect(photo["ImageWidth"] as? Int == 1200 && photo["ImageHeight"] as? Int == 900)
                let old = try JPEGFile([UInt8](try #require(before[name]))), new = try JPEGFile([UInt8](try #require(after[name])))
                #expect(new.tail == old.tail, "\(name): the image data changed")
                #expect(new.segments.filter { $0.marker != 0xE1 } == old.segments.filter { $0.marker != 0xE1 })
            }
            #expect((try ExifMetadata(jpeg: [UInt8](after["IMG_0003.JPG"]!))).byteOrder == .littleEndian)
            #expect((try ExifMetadata(jpeg: [UInt8](after["IMG_0002.jpg"]!))).byteOrder == .bigEndian)
            for name in ["early.jpg", "undated.jpg"] {
                #expect(read[name]?["GPSLatitude"] == nil)
            }

            // Run again: the same tags, the same files.
            let again = try await Self.geotag(folder, stored, ["--route-id", stored.routeID])
            #expect(again.status == 0, "\(again.output)")
            #expect(try Self.contents(folder) == after)
        }

        @Test func dryRunWritesNothingAndOutputLeavesTheOriginals() async throws {
            let stored = try await Self.storeRoute()
            let folder = try Self.folder(), output = try Self.folder() + "/tagged"
            defer { try? FileManager.default.removeItem(atPath: folder) }
            defer { try? FileManager.default.removeItem(atPath: (output as NSString).deletingLastPathComponent) }
            try await Self.addPhoto(
                "qr.jpg", in: folder, qr: RouteQRText(time: Int64(Self.start) + 5, nonce: stored.nonce).text, routeTime: Self.start + 5)
            try await Self.addPhoto("walk.jpg", in: folder, seed: 1, routeTime: Self.start + 62.5)
            try await Self.addPhoto("home.jpg", in: folder, seed: 2, routeTime: Self.start + 9000)
            let before = try Self.contents(folder)

            let dry = try await Self.geotag(folder, stored, ["--dry-run"])
            #expect(dry.status == 0, "\(dry.output)")
            #expect(dry.output.contains("dry run: 2 photos would be geotagged, 1 skipped; nothing written"))
            let walk = try Self.expected(Self.start + 62)
            let walkRow = dry.output.split(separator: "\n").first { $0.hasPrefix("walk.jpg") }.map(String.init) ?? ""
            #expect(
                walkRow.contains(String(format: "%.7f", walk.latitude)) && walkRow.contains(String(format: "%.7f", walk.longitude)), "\(dry.output)")
            #expect(try Self.contents(folder) == before)

            let copied = try await Self.geotag(folder, stored, ["--output", output])
            #expect(copied.status == 0, "\(copied.output)")
            #expect(copied.output.contains("2 photos geotagged into \(output), 1 skipped"))
            #expect(try Self.contents(folder) == before)
            #expect(try Set(FileManager.default.contentsOfDirectory(atPath: output)) == ["qr.jpg", "walk.jpg"])
            let read = try await Self.readBack(output)
            let latitude = try #require(read["walk.jpg"]?["GPSLatitude"] as? Double),
                longitude = try #require(read["walk.jpg"]?["GPSLongitude"] as? Double)
            #expect(Self.metres(latitude, longitude, try Self.expected(Self.start + 62)) < 1)
        }

        @Test func clearErrors() async throws {
            let stored = try await Self.storeRoute()
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            func expectError(_ run: (status: Int32, output: String), _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
                #expect(run.status != 0, sourceLocation: sourceLocation)
                let errors = run.output.split(separator: "\n").filter { $0.hasPrefix("Error: ") }
                #expect(errors.count == 1 && errors.first?.contains(message) == true, "\(run.output)", sourceLocation: sourceLocation)
            }

            // No QR photo.
            try await Self.addPhoto("a.jpg", in: folder, seed: 1, routeTime: Self.start + 10)
            try await Self.addPhoto("b.jpg", in: folder, seed: 2, routeTime: Self.start + 20)
            expectError(try await Self.geotag(folder, stored), "none of the 2 photos shows the route's QR code")

            // A QR photo without a capture time.
            let qr = RouteQRText(time: Int64(Self.start) + 40, nonce: stored.nonce)
            try await Self.addPhoto("qr.jpg", in: folder, qr: qr.text, routeTime: nil)
            expectError(try await Self.geotag(folder, stored), "qr.jpg shows the QR code but has no capture time")

            // Wrong passphrase (the QR photo now dated).
            try await Self.addPhoto("qr.jpg", in: folder, qr: qr.text, routeTime: Self.start + 40)
            expectError(
                try await Self.geotag(folder, stored, passphrase: "Tour of Amsterdam"), "wrong passphrase: route \(stored.routeID) does not open")

            // Unreachable server: within seconds.
            let started = ContinuousClock.now
            expectError(try await Self.geotag(folder, stored, server: "https://127.0.0.1:1"), "cannot reach https://127.0.0.1:1")
            #expect(ContinuousClock.now - started < .seconds(30))

            // A route id the server does not know.
            expectError(
                try await Self.geotag(folder, stored, ["--route-id", "AAAAAAAAAAAAAAAAAAAAAA"]), "the server has no route AAAAAAAAAAAAAAAAAAAAAA")

            // Two photos of QR codes of different routes.
            let other = RouteQRText(time: Int64(Self.start) + 50, nonce: RouteNonce.random())
            try await Self.addPhoto("qr2.jpg", in: folder, qr: other.text, routeTime: Self.start + 50)
            expectError(
                try await Self.geotag(folder, stored), "photos show the QR codes of different routes: qr.jpg (\(qr.text)), qr2.jpg (\(other.text))")

            // Nothing was written by any of these.
            let photos = try await Self.readBack(folder)
            #expect(Set(["a.jpg", "b.jpg", "qr.jpg", "qr2.jpg"]).isSubset(of: photos.keys), "exiftool read \(photos.keys.sorted())")
            #expect(photos.values.allSatisfy { $0["GPSLatitude"] == nil })

            // A folder without photos.
            let empty = try Self.folder()
            defer { try? FileManager.default.removeItem(atPath: empty) }
            expectError(try await Self.geotag(empty, stored), "no JPEG photos (*.jpg, *.jpeg) in \(empty)")
            expectError(try await Self.geotag(empty + "/missing", stored), "\(empty)/missing is not a folder")
        }

        @Test func thePassphraseMayComeFromAFileOrTheEnvironment() async throws {
            let stored = try await Self.storeRoute(passphrase: "-starts with a dash")
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            try await Self.addPhoto(
                "qr.jpg", in: folder, qr: RouteQRText(time: Int64(Self.start) + 5, nonce: stored.nonce).text, routeTime: Self.start + 5)
            let file = folder + "/passphrase.txt"
            try "-starts with a dash\n".write(toFile: file, atomically: true, encoding: .utf8)
            let base = [
                "geotag", folder, "--dry-run", "--server", try platform.baseURL, "--key", stored.key, "--secret", stored.secret, "--insecure",
            ]
            let fromFile = try await platform.custodian(base + ["--passphrase-file", file])
            #expect(fromFile.status == 0 && fromFile.output.contains("1 photo would be geotagged"), "\(fromFile.output)")
            let fromEnvironment = try await platform.custodian(base, environment: ["CUSTODIAN_ROUTE_PASSPHRASE": "-starts with a dash"])
            #expect(fromEnvironment.status == 0, "\(fromEnvironment.output)")
        }
    }
}
