import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation
import ServiceTestSupport
import Testing
@testable import LinksService

@Suite("QR render requests: links.qr.render input and the admin route's query")
struct QRRequestTests {
    static func render(_ query: [String: [String]]) throws -> QRRenderInput { try RoutedRequests.read(QRQuery.self, query: query).render }

    @Test func theQueryDefaultsToAnMLevelPNGWithEightPixelModulesAndAFourModuleMargin() throws {
        let input = try Self.render(["data": ["hello"]])
        #expect(input == QRRenderInput(payload: "hello", format: .png, errorCorrection: .M, moduleSize: 8, margin: 4))
        let all = try Self.render(["data": ["x"], "format": ["SVG"], "ec": ["h"], "size": ["1"], "margin": ["0"]])
        #expect(all == QRRenderInput(payload: "x", format: .svg, errorCorrection: .H, moduleSize: 1, margin: 0))
    }

    @Test(arguments: [
        (["format": ["png"]], "missing_data", "The query parameter 'data' is required: the text to encode"),
        (["data": [""]], "missing_data", "The query parameter 'data' is required: the text to encode"),
        (["data": ["a"], "format": ["gif"]], "invalid_format", "format must be png or svg, not 'gif'"),
        (["data": ["a"], "ec": ["X"]], "invalid_error_correction", "ec must be L, M, Q or H, not 'X'"),
        (["data": ["a"], "size": ["0"]], "invalid_module_size", "size must be a whole number from 1 to 64 (pixels per module), not '0'"),
        (["data": ["a"], "size": ["65"]], "invalid_module_size", "size must be a whole number from 1 to 64 (pixels per module), not '65'"),
        (["data": ["a"], "size": ["8.5"]], "invalid_module_size", "size must be a whole number from 1 to 64 (pixels per module), not '8.5'"),
        (["data": ["a"], "margin": ["17"]], "invalid_margin", "margin must be a whole number from 0 to 16 (modules), not '17'"),
        (["data": ["a"], "margin": ["-1"]], "invalid_margin", "margin must be a whole number from 0 to 16 (modules), not '-1'"),
        (["data": ["a", "b"]], "repeated_parameter", "Give the query parameter 'data' once, not 2 times"),
        (["data": ["a"], "level": ["H"]], "unknown_parameter", "Unknown query parameter 'level'; the parameters are data, format, ec, size, margin"),
    ])
    func badQueriesAre400sThatNameTheParameter(query: [String: [String]], reason: String, message: String) {
        #expect(throws: RPCError.badRequest(message, reason: reason)) { try Self.render(query) }
    }

    @Test func theRPCInputDecodesWithDefaultsAndExplainsBadValues() throws {
        let decoded = try JSONDecoder().decode(QRRenderInput.self, from: Data(#"{"payload":"p","format":"svg"}"#.utf8))
        #expect(decoded == QRRenderInput(payload: "p", format: .svg))
        do {
            _ = try JSONDecoder().decode(QRRenderInput.self, from: Data(#"{"payload":"p","format":"gif"}"#.utf8))
            Issue.record("gif was accepted")
        } catch let error as DecodingError {
            #expect(describe(error) == #"format: must be "png" or "svg", not "gif""#)
        }
        do {
            _ = try JSONDecoder().decode(QRRenderInput.self, from: Data(#"{"payload":"p","format":"png","errorCorrection":"Z"}"#.utf8))
            Issue.record("Z was accepted")
        } catch let error as DecodingError {
            #expect(describe(error) == #"errorCorrection: must be "L", "M", "Q" or "H", not "Z""#)
        }
        // Encodes back into the same JSON members, so callers in other services can build it.
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(QRRenderInput(payload: "p", format: .png))) as? [String: Any]
        #expect(json?["errorCorrection"] as? String == "M")
        #expect(json?["moduleSize"] as? Int == 8)
    }

    @Test func renderedImagesAreNotCachedAndCarryTheirType() throws {
        let png = try QRImages.render(QRRenderInput(payload: "hello", format: .png))
        #expect(png.status == 200)
        #expect(png.headers == ["Content-Type": "image/png", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"])
        #expect(Scanner.matches(try Scanner.decode(try #require(Data(base64Encoded: png.body))), Array("hello".utf8)))
        let svg = try QRImages.render(QRRenderInput(payload: "hello", format: .svg, moduleSize: 64, margin: 16))
        #expect(svg.headers["Content-Type"] == "image/svg+xml")
        #expect(String(decoding: try #require(Data(base64Encoded: svg.body)), as: UTF8.self).hasPrefix("<?xml"))
    }

    @Test func outOfRangeRPCValuesAndOversizeImagesAre400s() throws {
        #expect(throws: RPCError.badRequest("payload must not be empty", reason: "missing_data")) {
            try QRImages.render(QRRenderInput(payload: "", format: .png))
        }
        #expect(throws: RPCError.badRequest("moduleSize must be from 1 to 64 pixels, not 0", reason: "invalid_module_size")) {
            try QRImages.render(QRRenderInput(payload: "a", format: .png, moduleSize: 0))
        }
        #expect(throws: RPCError.badRequest("margin must be from 0 to 16 modules, not 20", reason: "invalid_margin")) {
            try QRImages.render(QRRenderInput(payload: "a", format: .svg, margin: 20))
        }
        let tooLong = String(repeating: "x", count: 2332)
        #expect(
            throws: RPCError.badRequest(
                "The data is 2332 bytes long; a QR code with error correction M holds at most 2331 bytes (use a lower level or less data)",
                reason: "payload_too_long")
        ) {
            try QRImages.render(QRRenderInput(payload: tooLong, format: .png))
        }
        // Version 40 (177 modules) plus margins of 4 at 64 pixels a module: 11840 pixels, a 134 MiB image to deflate.
        let large = String(repeating: "x", count: 2953)
        #expect(
            throws: RPCError.badRequest(
                "The PNG would be 11840 pixels wide (185 modules of 64 pixels); at most 8192 are allowed, so use a smaller module size or margin, or SVG",
                reason: "image_too_large")
        ) {
            try QRImages.render(QRRenderInput(payload: large, format: .png, errorCorrection: .L, moduleSize: 64))
        }
        // At 32 pixels a module (5920 pixels), which stored deflate blocks could not keep small enough, it is a PNG.
        let wide = try QRImages.render(QRRenderInput(payload: large, format: .png, errorCorrection: .L, moduleSize: 32))
        #expect(wide.status == 200 && wide.headers["Content-Type"] == "image/png")
        #expect(try DecodedPNG(try #require(Data(base64Encoded: wide.body))).side == 5920)
    }
}
