import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif
import Testing
@testable import LinksService

@Suite("SVG images of QR codes")
struct SVGTests {
    /// The dark modules an SVG draws, read back from its path's `M x y h n v 1 h -n z` runs.
    static func darkModules(in svg: String) throws -> Set<[Int]> {
        let pathData = try #require(svg.firstMatch(of: /<path fill="#000000" d="([^"]*)"\/>/)?.1)
        var dark = Set<[Int]>()
        var consumed = 0
        for run in pathData.matches(of: /M(\d+) (\d+)h(\d+)v1h-(\d+)z/) {
            let (x, y, width, back) = (Int(run.1)!, Int(run.2)!, Int(run.3)!, Int(run.4)!)
            #expect(width == back && width > 0)
            for column in x..<(x + width) { dark.insert([y, column]) }
            consumed += run.0.count
        }
        #expect(consumed == pathData.count, "the path holds nothing but runs")
        return dark
    }

    @Test(arguments: Payloads.all.map(\.name))
    func theDarkModulesAreTheSymbolsDarkModules(name: String) throws {
        let payload = try #require(Payloads.all.first { $0.name == name }).bytes
        for level in QRCode.ErrorCorrection.allCases {
            let layout = QRLayout(code: try QRCode(encoding: payload, errorCorrection: level), moduleSize: 8, margin: 4)
            let svg = SVGRenderer.render(layout)
            var expected = Set<[Int]>()
            for row in 0..<layout.modulesPerSide {
                for column in 0..<layout.modulesPerSide where layout.isDark(row: row, column: column) { expected.insert([row, column]) }
            }
            #expect(try Self.darkModules(in: svg) == expected)
        }
    }

    @Test func theViewBoxCountsModulesAndTheSizePixels() throws {
        let layout = QRLayout(code: try QRCode(encoding: "HELLO"), moduleSize: 10, margin: 4)
        let svg = SVGRenderer.render(layout)
        #expect(svg.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"#))
        #expect(svg.contains(#"width="290" height="290" viewBox="0 0 29 29" shape-rendering="crispEdges""#))
        #expect(svg.contains(##"<rect x="0" y="0" width="29" height="29" fill="#ffffff"/>"##))
        #expect(!svg.contains("HELLO"), "the payload never appears as text")
        // Well-formed XML.
        _ = try XMLDocument(xmlString: svg)
    }

    @Test(.enabled(if: Scanner.rsvgConvert != nil, "needs rsvg-convert (librsvg2-bin)"), arguments: Payloads.all.map(\.name))
    func rasterizedByLibrsvgItReadsBack(name: String) throws {
        let payload = try #require(Payloads.all.first { $0.name == name }).bytes
        let layout = QRLayout(code: try QRCode(encoding: payload, errorCorrection: .Q), moduleSize: 4, margin: 4)
        let decoded = try Scanner.decode(Scanner.rasterize(svg: SVGRenderer.render(layout)))
        #expect(Scanner.matches(decoded, payload))
    }
}
