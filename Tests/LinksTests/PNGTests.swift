import Foundation
import Testing
@testable import CustodianQR
@testable import LinksService

/// A PNG file taken apart by the book, to check every chunk's CRC and the zlib stream independently of the encoder.
struct ParsedPNG {
    struct Chunk {
        var type: String
        var data: [UInt8]
        var crc: UInt32
    }

    var chunks: [Chunk] = []

    init(_ data: Data) throws {
        let bytes = Array(data)
        guard Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else { throw ScannerError("no PNG signature") }
        var offset = 8
        func uint32(_ at: Int) -> UInt32 { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | UInt32($1) } }
        while offset < bytes.count {
            let length = Int(uint32(offset))
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let chunkData = Array(bytes[(offset + 8)..<(offset + 8 + length)])
            chunks.append(Chunk(type: type, data: chunkData, crc: uint32(offset + 8 + length)))
            offset += 12 + length
        }
        guard offset == bytes.count else { throw ScannerError("trailing bytes after the last chunk") }
    }

    /// The IDAT data inflated by reading its stored blocks.
    func inflatedImageData() throws -> [UInt8] {
        let stream = chunks.filter { $0.type == "IDAT" }.flatMap(\.data)
        var offset = 2
        var output: [UInt8] = []
        while true {
            let header = stream[offset]
            guard header >> 1 == 0 else { throw ScannerError("not a stored block") }
            let length = Int(stream[offset + 1]) | Int(stream[offset + 2]) << 8
            output += stream[(offset + 5)..<(offset + 5 + length)]
            offset += 5 + length
            if header & 1 == 1 { break }
        }
        let adler = stream[offset..<(offset + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard adler == Adler32.checksum(output), offset + 4 == stream.count else { throw ScannerError("bad Adler-32 or trailing data") }
        return output
    }
}

@Suite("PNG images of QR codes")
struct PNGTests {
    @Test func theFileHasTheSignatureAndChunksInOrderEachWithAGoodCRC() throws {
        let layout = QRLayout(code: try QRCode(encoding: "chunks"), moduleSize: 3, margin: 2)
        let png = try ParsedPNG(PNGEncoder.encode(layout))
        #expect(png.chunks.map(\.type) == ["IHDR", "IDAT", "IEND"])
        for chunk in png.chunks {
            #expect(chunk.crc == CRC32.checksum(Array(chunk.type.utf8) + chunk.data), "CRC of \(chunk.type)")
        }
        let side = UInt32(layout.pixelsPerSide)
        #expect(png.chunks[0].data == bigEndian(side) + bigEndian(side) + [1, 0, 0, 0, 0])
        #expect(png.chunks[2].data.isEmpty)
        #expect(png.chunks[2].crc == 0xAE42_6082)
    }

    @Test(arguments: PNGEncoder.BitDepth.allCases)
    func thePixelsAreTheModulesScaledWithTheQuietZone(depth: PNGEncoder.BitDepth) throws {
        let layout = QRLayout(code: try QRCode(encoding: "pixels", errorCorrection: .H), moduleSize: 5, margin: 3)
        let image = try ParsedPNG(PNGEncoder.encode(layout, bitDepth: depth)).inflatedImageData()
        let width = layout.pixelsPerSide
        let stride = 1 + (depth == .one ? (width + 7) / 8 : width)
        #expect(image.count == stride * width)
        for y in 0..<width {
            #expect(image[y * stride] == 0, "filter type of row \(y)")
            for x in 0..<width {
                let light: Bool = switch depth {
                case .one: image[y * stride + 1 + x / 8] & (0x80 >> UInt8(x % 8)) != 0
                case .eight: image[y * stride + 1 + x] == 0xFF
                }
                if depth == .eight { #expect(image[y * stride + 1 + x] == 0 || image[y * stride + 1 + x] == 0xFF) }
                #expect(light == !layout.isDark(row: y / 5, column: x / 5))
            }
        }
    }

    @Test func aLargeImageSpansSeveralStoredBlocks() throws {
        let layout = QRLayout(code: try QRCode(encoding: [UInt8](repeating: 0x42, count: 2000), errorCorrection: .L), moduleSize: 8, margin: 4)
        let encoded = PNGEncoder.encode(layout, bitDepth: .eight)
        let image = try ParsedPNG(encoded).inflatedImageData()
        #expect(image.count > 3 * ZlibStoredStream.maximumBlockSize)
        let decoded = try Scanner.decode(encoded)
        #expect(Scanner.matches(decoded, [UInt8](repeating: 0x42, count: 2000)))
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

    @Test(arguments: [(1, 4, PNGEncoder.BitDepth.eight), (2, 0, .one), (3, 1, .one), (16, 16, .eight)])
    func zbarimgReadsOtherModuleSizesMarginsAndDepths(moduleSize: Int, margin: Int, depth: PNGEncoder.BitDepth) throws {
        let payload = Array(#"{"ver":"v1","name":"TWOMES-0D45DF","pop":"810667973","transport":"ble"}"#.utf8)
        let layout = QRLayout(code: try QRCode(encoding: payload, errorCorrection: .M), moduleSize: moduleSize, margin: margin)
        let decoded = try Scanner.decode(PNGEncoder.encode(layout, bitDepth: depth))
        #expect(Scanner.matches(decoded, payload))
    }

    @Test func theLargestPayloadAtLevelLReadsBack() throws {
        let payload = (0..<QRCode.ErrorCorrection.L.maximumPayloadBytes).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        let layout = QRLayout(code: try QRCode(encoding: payload, errorCorrection: .L), moduleSize: 4, margin: 4)
        #expect(Scanner.matches(try Scanner.decode(PNGEncoder.encode(layout)), payload))
    }
}
