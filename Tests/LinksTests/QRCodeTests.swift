import Foundation
import Testing
@testable import LinksService

@Suite("QR code symbols from libqrencode")
struct QRCodeTests {
    @Test func aShortPayloadIsAVersion1SymbolWithItsFinderPatterns() throws {
        let code = try QRCode(encoding: "HELLO", errorCorrection: .M)
        #expect(code.version == 1)
        #expect(code.size == 21)
        #expect(code.modules.count == 21 * 21)
        // The three finder patterns: a dark 7×7 ring around a light ring around a dark 3×3 square.
        for (top, left) in [(0, 0), (0, 14), (14, 0)] {
            for row in 0..<7 {
                for column in 0..<7 {
                    let ring = max(abs(row - 3), abs(column - 3))
                    #expect(code[top + row, left + column] == (ring != 2), "finder pattern at (\(top), \(left)), module (\(row), \(column))")
                }
            }
        }
    }

    @Test(arguments: QRCode.ErrorCorrection.allCases)
    func theLargestPayloadFitsAndOneMoreByteIsAClearError(level: QRCode.ErrorCorrection) throws {
        let maximum = level.maximumPayloadBytes
        let fits = try QRCode(encoding: [UInt8](repeating: 0xA5, count: maximum), errorCorrection: level)
        #expect(fits.version == 40)
        #expect(fits.size == 177)
        #expect(throws: QRCodeError.payloadTooLong(bytes: maximum + 1, maximum: maximum, errorCorrection: level)) {
            try QRCode(encoding: [UInt8](repeating: 0xA5, count: maximum + 1), errorCorrection: level)
        }
        let message = QRCodeError.payloadTooLong(bytes: maximum + 1, maximum: maximum, errorCorrection: level).description
        #expect(
            message
                == "The data is \(maximum + 1) bytes long; a QR code with error correction \(level.rawValue) holds at most \(maximum) bytes (use a lower level or less data)"
        )
    }

    @Test func anEmptyPayloadIsRefused() {
        #expect(throws: QRCodeError.emptyPayload) { try QRCode(encoding: "") }
    }

    @Test func higherLevelsNeedLargerSymbols() throws {
        let payload = String(repeating: "0123456789abcdef", count: 8)
        let versions = try QRCode.ErrorCorrection.allCases.map { try QRCode(encoding: payload, errorCorrection: $0).version }
        #expect(versions == versions.sorted())
        #expect(versions.first! < versions.last!)
    }

    @Test func theSameInputGivesTheSameSymbol() throws {
        #expect(try QRCode(encoding: "same", errorCorrection: .Q) == QRCode(encoding: "same", errorCorrection: .Q))
    }
}
