import CPNG
import Foundation
import Testing
@testable import CustodianQR
@testable import LinksService

/// A PNG file's chunks, taken apart by the book, to check the format the encoder chose.
struct PNGChunks {
    var chunks: [(type: String, data: [UInt8])] = []

    init(_ data: Data) throws {
        let bytes = Array(data)
        guard Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else { throw ScannerError("no PNG signature") }
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset..<(offset + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            guard offset + 12 + length <= bytes.count else { throw ScannerError("a chunk runs past the end") }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            chunks.append((type, Array(bytes[(offset + 8)..<(offset + 8 + length)])))
            offset += 12 + length
        }
        guard offset == bytes.count else { throw ScannerError("trailing bytes after the last chunk") }
    }
}

/// A PNG read back by libpng's reader (which checks every chunk's CRC and the zlib stream), as 8-bit gray pixels.
struct DecodedPNG {
    var side: Int
    var gray: [UInt8]

    init(_ data: Data) throws {
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        guard data.withUnsafeBytes({ png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }) != 0 else {
            throw ScannerError("libpng cannot read it: \(Self.message(image))")
        }
        guard image.width == image.height else { throw ScannerError("not square: \(image.width) × \(image.height)") }
        image.format = png_uint_32(PNG_FORMAT_GRAY)
        side = Int(image.width)
        var pixels = [UInt8](repeating: 0x80, count: side * side)
        guard pixels.withUnsafeMutableBytes({ png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }) != 0 else {
            throw ScannerError("libpng cannot decode it: \(Self.message(image))")
        }
        gray = pixels
    }

    static func message(_ image: png_image) -> String {
        withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// Whether every pixel is black where the layout has a dark module and white elsewhere.
    func shows(_ layout: QRLayout) -> Bool {
        let size = layout.moduleSize
        return side == layout.pixelsPerSide
            && (0..<side).allSatisfy { y in
                (0..<side).allSatisfy { x in gray[y * side + x] == (layout.isDark(row: y / size, column: x / size) ? 0x00 : 0xFF) }
            }
    }

    /// Whether each module's centre pixel is black for a dark module and white for a light one: for images too large
    /// to check pixel by pixel in a debug build.
    func showsModuleCentres(_ layout: QRLayout) -> Bool {
        let size = layout.moduleSize
        return side == layout.pixelsPerSide
            && (0..<layout.modulesPerSide).allSatisfy { row in
                (0..<layout.modulesPerSide).allSatisfy { column in
                    gray[(row * size + size / 2) * side + column * size + size / 2] == (layout.isDark(row: row, column: column) ? 0x00 : 0xFF)
                }
            }
    }
}

@Suite("PNG images of QR codes")
struct PNGTests {
    @Test func theFileIsAOneBitPaletteOfBlackAndWhite() throws {
        let layout = QRLayout(code: try QRCode(encoding: "chunks"), moduleSize: 3, margin: 2)
        let chunks = try PNGChunks(PNGEncoder.encode(layout)).chunks
        #expect(chunks.first?.type == "IHDR" && chunks.last?.type == "IEND" && chunks.contains { $0.type == "IDAT" })
        let side = UInt32(layout.pixelsPerSide)
        let sideBytes = [UInt8(side >> 24), UInt8(side >> 16 & 0xFF), UInt8(side >> 8 & 0xFF), UInt8(side & 0xFF)]
        // Width, height, bit depth 1, colour type 3 (palette), compression and filter method 0, no interlace.
        #expect(chunks.first?.data == sideBytes + sideBytes + [1, 3, 0, 0, 0])
        #expect(chunks.first { $0.type == "PLTE" }?.data == [0, 0, 0, 0xFF, 0xFF, 0xFF])
    }

    @Test(arguments: [(1, 0), (5, 3), (8, 4)])
    func thePixelsAreTheModulesScaledWithTheQuietZone(moduleSize: Int, margin: Int) throws {
        let layout = QRLayout(code: try QRCode(encoding: "pixels", errorCorrection: .H), moduleSize: moduleSize, margin: margin)
        #expect(try DecodedPNG(PNGEncoder.encode(layout)).shows(layout))
    }

    /// The largest symbol (version 40) at the largest size the routes draw as PNG (QRImages.maximumPNGPixels).
    @Test func theLargestImageIsWrittenWhole() throws {
        let payload = (0..<QRCode.ErrorCorrection.L.maximumPayloadBytes).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        let layout = QRLayout(code: try QRCode(encoding: payload, errorCorrection: .L), moduleSize: 39, margin: 16)
        #expect(layout.pixelsPerSide == 8151 && layout.pixelsPerSide <= QRImages.maximumPNGPixels)
        let png = try PNGEncoder.encode(layout)
        #expect(png.count < 1 << 20, "\(png.count) bytes")
        #expect(try DecodedPNG(png).showsModuleCentres(layout))
    }

    @Test(arguments: Payloads.all.map(\.name))
    func zbarimgReadsEveryPayloadBackAtEveryLevel(name: String) throws {
        let payload = try #require(Payloads.all.first { $0.name == name }).bytes
        for level in QRCode.ErrorCorrection.allCases {
            let layout = QRLayout(code: try QRCode(encoding: payload, errorCorrection: level), moduleSize: 4, margin: 4)
            let decoded = try Scanner.decode(PNGEncoder.encode(layout))
            #expect(Scanner.matches(decoded, payload), "\(name) at level \(level): got \(decoded.count) bytes \(decoded.prefix(40))")
        }
    }

    @Test(arguments: [(1, 4), (2, 0), (3, 1), (16, 16)])
    func zbarimgReadsOtherModuleSizesAndMargins(moduleSize: Int, margin: Int) throws {
        let payload = Array(#"{"ver":"v1","name":"TWOMES-0D45DF","pop":"810667973","transport":"ble"}"#.utf8)
        let layout = QRLayout(code: try QRCode(encoding: payload, errorCorrection: .M), moduleSize: moduleSize, margin: margin)
        let decoded = try Scanner.decode(PNGEncoder.encode(layout))
        #expect(Scanner.matches(decoded, payload))
    }

    @Test func theLargestPayloadAtLevelLReadsBack() throws {
        let payload = (0..<QRCode.ErrorCorrection.L.maximumPayloadBytes).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        let layout = QRLayout(code: try QRCode(encoding: payload, errorCorrection: .L), moduleSize: 4, margin: 4)
        #expect(Scanner.matches(try Scanner.decode(PNGEncoder.encode(layout)), payload))
    }
}
