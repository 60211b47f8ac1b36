import CustodianQR
import Foundation
import Testing

/// The half-block drawing `custodian route upload` prints: read back module by module against libqrencode's
/// symbol, and by zbarimg from an image of the characters as a terminal shows them.
@Suite("QR codes as terminal text")
struct TerminalQRTests {
    static let routeText = "1795325360-440C07BBCDF5F62699517C7EAC2C05EC"

    /// A binary PGM of the text as a terminal draws it: each character a cell 6 pixels wide and 12 tall, ink black
    /// on white, with no gap between cells.
    static func pgm(_ lines: [String]) -> Data {
        let cells = lines.map { Array($0) }
        let width = (cells.map(\.count).max() ?? 0) * 6, height = cells.count * 12
        var pixels = [UInt8](repeating: 255, count: width * height)
        for (line, characters) in cells.enumerated() {
            for (column, character) in characters.enumerated() {
                let halves: (Bool, Bool) =
                    switch character {
                    case "█": (true, true)
                    case "▀": (true, false)
                    case "▄": (false, true)
                    default: (false, false)
                    }
                for y in 0..<12 where y < 6 ? halves.0 : halves.1 {
                    for x in 0..<6 { pixels[(line * 12 + y) * width + column * 6 + x] = 0 }
                }
            }
        }
        return Data("P5\n\(width) \(height)\n255\n".utf8) + Data(pixels)
    }

    @Test(arguments: [(routeText, QRCode.ErrorCorrection.Q, 4), ("HELLO", .M, 4), ("x", .L, 2), (String(repeating: "custodian ", count: 30), .H, 4)])
    func everyModuleAndTheQuietZoneAreWhereLibqrencodePutThem(text: String, level: QRCode.ErrorCorrection, margin: Int) throws {
        let code = try QRCode(encoding: text, errorCorrection: level)
        let lines = TerminalQR.lines(code, margin: margin)
        let side = code.size + 2 * margin
        // A symbol is an odd number of modules wide, so the last line's lower halves lie below it.
        #expect(lines.count == (side + 1) / 2)
        #expect(lines.allSatisfy { $0.count == side })
        let shown = try #require(TerminalQR.modules(lines))
        let layout = QRLayout(code: code, moduleSize: 1, margin: margin)
        for row in 0..<shown.count {
            for column in 0..<side {
                #expect(shown[row][column] == layout.isDark(row: row, column: column), "module (\(row), \(column))")
            }
        }
        #expect(shown[side...].allSatisfy { $0.allSatisfy { !$0 } })
        // The quiet zone: `margin` light modules all round.
        #expect(shown.prefix(margin).allSatisfy { $0.allSatisfy { !$0 } })
        #expect(shown.allSatisfy { $0.prefix(margin).allSatisfy { !$0 } && $0.suffix(margin).allSatisfy { !$0 } })
    }

    @Test func zbarimgReadsTheCharactersBackToTheText() throws {
        let lines = TerminalQR.lines(try QRCode(encoding: Self.routeText, errorCorrection: .Q))
        #expect(Scanner.matches(try Scanner.decode(Self.pgm(lines), fileExtension: "pgm"), Array(Self.routeText.utf8)))
    }

    @Test func blackOnWhitePaintsEachLineWhateverTheTerminalsColoursAndResetsThem() throws {
        let code = try QRCode(encoding: Self.routeText, errorCorrection: .Q)
        let plain = TerminalQR.lines(code)
        let painted = TerminalQR.lines(code, colours: .blackOnWhite)
        #expect(painted == plain.map { "\u{1B}[30;107m" + $0 + "\u{1B}[0m" })
    }
}
