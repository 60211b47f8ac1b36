import CustodianJSON
import CustodianRPC
import Foundation
import HTTPTypes
import Testing

@testable import GatewayKit

/// The console's parts that need no platform: which admin routes its pages use, its multipart reading, its chart,
/// its CSRF tokens and how it shows times. The pages themselves are tested against a platform (IntegrationTests'
/// ConsoleTests) and in a browser (Deploy/dev/console-browser.sh).
@Suite("Console parts")
struct ConsolePartsTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every `admin.json/raw/response/firstPage(.method, "path"` and `download(…, route: "path"` of the console names a route the
    /// gateway serves: a page that named another would answer 500.
    @Test func everyAdminRouteTheConsoleCallsIsRouted() throws {
        let source = try ["ConsoleRoutes.swift", "ConsoleAdministration.swift"].map { file in
            try String(contentsOf: Self.repository.appending(path: "Services/gateway/GatewayKit/Console/\(file)"), encoding: .utf8)
        }.joined(separator: "\n")
        let routed = Set(RouteTable.all.map { "\($0.method.rawValue) \($0.path)" })
        var used: [String] = []
        for match in source.matches(of: /admin\.(?:json|raw|response|firstPage)\(\.(get|post|put|delete), "([^"]+)"/) {
            used.append("\(match.1.uppercased()) \(match.2)")
        }
        for match in source.matches(of: /download\(visit, route: "([^"]+)"/) {
            used.append("GET \(match.1)")
        }
        #expect(used.count >= 20, "the patterns still find the console's calls (\(used.count))")
        for route in used {
            #expect(routed.contains(route), "the console calls \(route), which RouteTable.all does not route")
        }
    }

    @Test func multipartFormsAreReadPartByPart() throws {
        let body =
            "preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\nabc\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\nContent-Type: text/csv\r\n\r\ncountry,date\r\nZA,2020-05-17\r\n\r\n"
            + "--XyZ--\r\n"
        let fields = try #require(ConsoleForm.multipart(Data(body.utf8), boundary: "XyZ"))
        #expect(fields["csrf"] == ["abc"])
        #expect(fields["file"] == ["country,date\r\nZA,2020-05-17\r\n"], "the file's own line breaks are kept")
        #expect(ConsoleForm.boundary(of: "multipart/form-data; boundary=\"XyZ\"") == "XyZ")
        #expect(ConsoleForm.boundary(of: "multipart/form-data") == nil)
        // Hostile bodies are refused, never trapped on.
        for broken in ["", "--XyZ", "--XyZ\r\nno blank line\r\n--XyZ--", "--XyZ\r\nContent-Disposition: form-data\r\n\r\nx\r\n--XyZ--", "--XyZx"] {
            #expect(ConsoleForm.multipart(Data(broken.utf8), boundary: "XyZ") == nil, "\(broken.debugDescription)")
        }
        #expect(ConsoleForm.multipart(Data([0x2d, 0x2d, 0x58, 0x79, 0x5a, 0x0d, 0x0a, 0xff, 0x0d, 0x0a, 0x0d, 0x0a]), boundary: "XyZ") == nil)
    }

    @Test func theChartStacksEachWeeksStatusesAndDescribesItself() {
        let counts: [JSONValue] = [
            ["week": "2026-W47", "status": "Negative", "country": "GB", "count": 2],
            ["week": "2026-W47", "status": "Positive", "country": "GB", "count": 3],
            ["week": "2026-W48", "status": "Negative", "country": "NL", "count": 4],
            ["week": "2026-W48", "status": .null, "country": .null, "count": 1],
        ]
        let chart = SubmissionChart(counts: counts)
        #expect(chart.statuses == ["Negative", "Positive", "none given"])
        #expect(chart.bars.map(\.week) == ["2026-W47", "2026-W48"])
        #expect(chart.bars.map(\.counts) == [[2, 3, 0], [4, 0, 1]])
        let svg = chart.svg
        #expect(svg.hasPrefix(#"<svg xmlns="http://www.w3.org/2000/svg" id="submissions-chart" role="img""#))
        #expect(svg.contains("<desc id=\"chart-desc\">10 submissions in 2 weeks, from 2026-W47 to 2026-W48. 2026-W47: 5; 2026-W48: 5.</desc>"))
        #expect(svg.components(separatedBy: "<rect ").count - 1 == 4 + 3, "one bar part per non-zero count, one legend box per status")
        #expect(SubmissionChart(counts: []).svg.contains("No submissions yet"))
        #expect(SubmissionChart(counts: [["week": "<script>", "status": "\"&", "count": 1]]).svg.contains("&lt;script&gt;"))
        #expect([1, 4, 5, 6, 11, 99, 1234].map(SubmissionChart.gridStep) == [1, 1, 1, 2, 2, 20, 500])
    }

    @Test func aCSRFTokenBelongsToItsSessionAndDoesNotRevealIt() {
        let token = ConsoleSessionGate.csrf(forSession: "session-a")
        #expect(token == ConsoleSessionGate.csrf(forSession: "session-a"))
        #expect(token != ConsoleSessionGate.csrf(forSession: "session-b"))
        #expect(!token.contains("session-a") && token.count == 43)
    }

    @Test func timesAreShownShortAndOtherTextAsItIs() {
        #expect(JSONValue.string("2026-11-25T03:24:26+00:00").displayText == "2026-11-25 03:24 UTC")
        #expect(JSONValue.string("2026-11-22T05:28:28Z").displayText == "2026-11-22 05:28 UTC")
        #expect(JSONValue.string("2026-11-25T03:24:26+01:00").displayText == "2026-11-25T03:24:26+01:00", "only UTC is shortened")
        #expect(JSONValue.string("TWOMES-0A1B2C").displayText == "TWOMES-0A1B2C")
        #expect(JSONValue.string("20261125T03:24:26+00:00").displayText == "20261125T03:24:26+00:00")
        #expect(JSONValue.int(3).displayText == nil)
    }
}
