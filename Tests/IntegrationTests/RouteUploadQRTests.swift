import CustodianGeotag
import CustodianQR
import Foundation
import GeotagTool
import Testing

extension PlatformTests {
    /// `custodian route upload` draws the QR code of its QR text, to be photographed off the screen at once.
    @Suite("custodian route upload: the QR code in the terminal and as a PNG")
    struct RouteUploadQR {
        /// What a camera sees of those rows: 4 pixels a module, black ink on white.
        static func image(_ rows: [[Bool]]) -> GreyImage {
            let width = (rows.map(\.count).max() ?? 0) * 4, height = rows.count * 4
            var pixels = [UInt8](repeating: 255, count: width * height)
            for (row, modules) in rows.enumerated() {
                for (column, dark) in modules.enumerated() where dark {
                    for y in 0..<4 {
                        for x in 0..<4 { pixels[(row * 4 + y) * width + column * 4 + x] = 0 }
                    }
                }
            }
            return GreyImage(width: width, height: height, pixels: pixels)
        }

        @Test func theQRTextIsDrawnInHalfBlocksAndWrittenAsAPNGThatBothReadBack() async throws {
            let platform = try platform
            let consumer = try await Geotag.consumer("QR drawing test")
            let folder = NSTemporaryDirectory() + "cit-qr-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            try Geotag.gpx.write(toFile: folder + "/walk.gpx", atomically: true, encoding: .utf8)

            let upload = try await SeparatedOutput.run(
                platform.binaries + "/custodian",
                [
                    "route", "upload", "--gpx", folder + "/walk.gpx", "--passphrase", "Tour of Utrecht", "--server", platform.baseURL,
                    "--key", consumer.key, "--secret", consumer.secret, "--ca-file", platform.dataDirectory + "/tls/cert.pem",
                    "--qr-png", folder + "/qr.png",
                ])
            #expect(upload.status == 0, "\(upload.stdout)\(upload.stderr)")
            let lines = upload.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            let qrText = try #require(lines.first { $0.hasPrefix("qr_text ") }?.split(separator: " ").last.map(String.init))
            let qr = try RouteQRText(parsing: qrText)
            #expect(abs(qr.time - Int64(Date().timeIntervalSince1970)) < 30)
            #expect(lines.contains("qr_png         \(folder)/qr.png"))

            // The drawing: between the empty lines after the fields, in plain characters (stdout is not a terminal).
            let start = try #require(lines.firstIndex(of: "")) + 1
            let end = try #require(lines[start...].firstIndex(of: ""))
            let drawing = Array(lines[start..<end])
            #expect(!upload.stdout.contains("\u{1B}["), "colours are for terminals only")
            let code = try QRCode(encoding: qrText, errorCorrection: .Q)
            let side = code.size + 8
            #expect(drawing.count == (side + 1) / 2 && drawing.allSatisfy { $0.count == side })
            let shown = try #require(TerminalQR.modules(drawing))
            let layout = QRLayout(code: code, moduleSize: 1, margin: 4)
            let expected = (0..<shown.count).map { row in (0..<side).map { layout.isDark(row: row, column: $0) } }
            #expect(shown == expected, "the drawing is not libqrencode's symbol with a 4-module quiet zone")
            #expect(QRDecoder.decode(Self.image(shown)) == [qrText])

            // The instruction follows the code.
            let after = lines[(end + 1)...].joined(separator: "\n")
            #expect(
                after.contains("Photograph this QR code with the camera now: it holds the time \(qr.time), and every second between that"), "\(after)"
            )
            #expect(after.contains("time and the shutter is a second of error in the camera clock's correction."), "\(after)")

            // The PNG: the same symbol, read by zbarimg.
            let png = try Data(contentsOf: URL(fileURLWithPath: folder + "/qr.png"))
            #expect(try png == PNGEncoder.encode(QRLayout(code: code, moduleSize: 10, margin: 4)))
            #expect(try QRScanner.decode(png) == Array(qrText.utf8))
        }
    }
}
