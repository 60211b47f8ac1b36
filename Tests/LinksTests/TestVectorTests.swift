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

    static func hex(_ bytes: some Sequence<UInt8>) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func theModuleMatrix() throws {
        let code = try QRCode(encoding: "Custodian", errorCorrection: .M)
        #expect(code.version == 1)
        #expect(code.textMatrix == Self.matrix)
    }

    /// The PNG's bytes depend on libpng's and zlib's versions; its pixels do not.
    @Test func theOnePixelPNGShowsTheMatrix() throws {
        let code = try QRCode(encoding: "Custodian", errorCorrection: .M)
        let decoded = try DecodedPNG(PNGEncoder.encode(QRLayout(code: code, moduleSize: 1, margin: 0)))
        #expect(decoded.side == 21)
        let rows = (0..<decoded.side).map { y in String((0..<decoded.side).map { decoded.gray[y * decoded.side + $0] == 0 ? "#" : "." }) }
        #expect(rows.joined(separator: "\n") == Self.matrix)
    }

    @Test func theDefaultSVGDigest() throws {
        let layout = QRLayout(code: try QRCode(encoding: "Custodian", errorCorrection: .M), moduleSize: 8, margin: 4)
        let svg = Data(SVGRenderer.render(layout).utf8)
        #expect(svg.count == 1887)
        #expect(Self.hex(SHA256.hash(data: svg)) == "2fd402415b0a32c0573700ab5849a001d61cf44f36be3543efd2e3037ae44b26")
    }
}
