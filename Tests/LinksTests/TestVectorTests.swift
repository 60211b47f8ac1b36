import Crypto
import Foundation
import Testing
@testable import LinksService

/// The test vector of docs/links.md: "Custodian" at error correction M (libqrencode 4.1.1, Debian bookworm).
@Suite("The documented test vector")
struct TestVectorTests {
    static let matrix = """
        #######.#...#.#######
        #.....#.###.#.#.....#
        #.###.#..###..#.###.#
        #.###.#.#.##..#.###.#
        #.###.#..#.#..#.###.#
        #.....#...###.#.....#
        #######.#.#.#.#######
        ........#..##........
        #.##.###.#.##.#..#.##
        .##.##...#.##..######
        .#....##...#.###...##
        #.#....#.###...###..#
        #.##..#..##.#.####...
        ........#.##.#..##..#
        #######.#..########..
        #.....#.##.....#.###.
        #.###.#.....#.##..#..
        #.###.#.##.#..#..#.#.
        #.###.#.###.#.#...#..
        #.....#..#...#.##...#
        #######.#.#..#.#..#..
        """

    static let smallPNG = "89504e470d0a1a0a0000000d4948445200000015000000150100000000816c983b0000005f494441547801015400abff00"
        + "017400007d15f000458d1000454d100045ad10007dc5f00001540000ff67f80048a5a00093a60000bce8e0005e8e30004d94"
        + "3800ff4b3000016018007d3e880045f4d800452da8004515d8007dba7000015ad845961b4f6bae53bc0000000049454e44ae426082"

    static func hex(_ bytes: some Sequence<UInt8>) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func theModuleMatrix() throws {
        let code = try QRCode(encoding: "Custodian", errorCorrection: .M)
        #expect(code.version == 1)
        #expect(code.textMatrix == Self.matrix)
    }

    @Test func theOnePixelPNGByteForByte() throws {
        let code = try QRCode(encoding: "Custodian", errorCorrection: .M)
        #expect(Self.hex(PNGEncoder.encode(QRLayout(code: code, moduleSize: 1, margin: 0))) == Self.smallPNG)
    }

    @Test func theDefaultPNGAndSVGDigests() throws {
        let layout = QRLayout(code: try QRCode(encoding: "Custodian", errorCorrection: .M), moduleSize: 8, margin: 4)
        let png = PNGEncoder.encode(layout)
        #expect(png.count == 7028)
        #expect(Self.hex(SHA256.hash(data: png)) == "f41b01d874cf93cf370862cd452ed8fa966746622f177044ddab3bcc21685619")
        #expect(Self.hex(SHA256.hash(data: Data(SVGRenderer.render(layout).utf8)))
            == "2fd402415b0a32c0573700ab5849a001d61cf44f36be3543efd2e3037ae44b26")
    }
}
