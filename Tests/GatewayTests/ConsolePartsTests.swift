import CustodianContracts
import CustodianHTTP
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

    static let consoleFolder = repository.appending(path: "Services/gateway/GatewayKit/Console")

    /// Every method the console calls has exactly one route in the table, an admin route answering as its result's type
    /// says: a page cannot call a method the gateway does not route (it would answer 500).
    @Test func everyMethodTheConsoleCallsHasOneAdminRoute() {
        func rendering<Target: RouteTarget>(_ target: Target) -> RoutedRendering { Target.Result.rendering }
        #expect(ConsoleMethods.all.count >= 30, "the list names the console's calls (\(ConsoleMethods.all.count))")
        for method in ConsoleMethods.all {
            let routes = RouteTable.all.filter { $0.rpcMethod == method.name }
            #expect(routes.count == 1, "\(method.name) has \(routes.count) routes")
            guard let route = routes.first else { continue }
            #expect(route.rendering == rendering(method), "\(method.name)'s route answers as \(route.rendering)")
            // An admin route, or one anyone may call (the configuration OpenSense phones read): never another kind of credential.
            #expect(
                { if case .admin = route.auth { true } else { route.auth == .none } }(),
                "\(method.name)'s route \(route.path) is neither an admin route nor a public one")
        }
    }

    /// The console's files call no descriptor that ``ConsoleMethods`` does not list (and so the test above does not check);
    /// the session's own calls to `auth` go over RPC, not through a route.
    @Test func theConsoleCallsOnlyTheMethodsItLists() throws {
        let listed = try String(contentsOf: Self.consoleFolder.appending(path: "ConsoleMethods.swift"), encoding: .utf8)
        let sessionCalls: Set<String> = ["AuthMethods.consoleLogin", "AuthMethods.consoleLogout", "AuthMethods.consoleSession"]
        var named = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: Self.consoleFolder.path()) where file.hasSuffix(".swift") {
            guard file != "ConsoleMethods.swift" else { continue }
            let source = try String(contentsOf: Self.consoleFolder.appending(path: file), encoding: .utf8)
            for match in source.matches(of: /\b([A-Z][A-Za-z]*Methods)\.([a-z][A-Za-z]*)\b/) where match.1 != "ConsoleMethods" {
                let descriptor = "\(match.1).\(match.2)"
                named += 1
                #expect(
                    sessionCalls.contains(descriptor) || listed.contains(descriptor + ",") || listed.contains(descriptor + "\n"),
                    "\(file) calls \(descriptor), which ConsoleMethods.all does not list")
            }
        }
        #expect(named >= 30, "the pattern still finds the console's calls (\(named))")
    }

    @Test func multipartFormsAreReadPartByPart() throws {
        let body =
            "preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\nabc\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\nContent-Type: text/csv\r\n\r\ncountry,date\r\nZA,2020-05-17\r\n\r\n"
            + "--XyZ--\r\n"
        let fields = try #require(ConsoleForm.multipart(Data(body.utf8), boundary: "XyZ"))
        #expect(fields["csrf"] == ["abc"])
        #expect(fields["file"] == ["country,date\r\nZA,2020-05-17\r\n"], "the file's own line breaks are kept")
        #expect(
            fields["file" + ConsoleForm.fileNameSuffix] == ["a.csv"] && fields["csrf" + ConsoleForm.fileNameSuffix] == nil,
            "a file's name, to name it")
        #expect(ConsoleForm.boundary(of: "multipart/form-data; boundary=\"XyZ\"") == "XyZ")
        #expect(ConsoleForm.boundary(of: "multipart/form-data") == nil)
        // Hostile bodies are refused, never trapped on.
        for broken in ["", "--XyZ", "--XyZ\r\nno blank line\r\n--XyZ--", "--XyZ\r\nContent-Disposition: form-data\r\n\r\nx\r\n--XyZ--", "--XyZx"] {
            #expect(ConsoleForm.multipart(Data(broken.utf8), boundary: "XyZ") == nil, "\(broken.debugDescription)")
        }
        #expect(ConsoleForm.multipart(Data([0x2d, 0x2d, 0x58, 0x79, 0x5a, 0x0d, 0x0a, 0xff, 0x0d, 0x0a, 0x0d, 0x0a]), boundary: "XyZ") == nil)
    }

    @Test func theChartStacksEachWeeksStatusesAndDescribesItself() {
        let counts: [SubmissionCounts.Count] = [
            .init(status: "Negative", country: "GB", week: "2026-W47", count: 2),
            .init(status: "Positive", country: "GB", week: "2026-W47", count: 3),
            .init(status: "Negative", country: "NL", week: "2026-W48", count: 4),
            .init(status: nil, country: nil, week: "2026-W48", count: 1),
        ]
        let chart = SubmissionChart(counts: counts)
        #expect(chart.statuses == ["Negative", "Positive", "none given"])
        #expect(chart.bars.map(\.week) == ["2026-W47", "2026-W48"])
        #expect(chart.bars.map(\.counts) == [[2, 3, 0], [4, 0, 1]])
        let svg = chart.svg
        #expect(svg.hasPrefix(#"<svg xmlns="http://www.w3.org/2000/svg" id="submissions-chart" role="img""#))
        #expect(
            svg.contains("<desc id=\"submissions-chart-desc\">10 submissions in 2 weeks, from 2026-W47 to 2026-W48. 2026-W47: 5; 2026-W48: 5.</desc>")
        )
        #expect(svg.components(separatedBy: "<rect ").count - 1 == 4 + 3, "one bar part per non-zero count, one legend box per status")
        #expect(SubmissionChart(counts: []).svg.contains("No submissions yet"))
        #expect(SubmissionChart(counts: [.init(status: "\"&", country: nil, week: "<script>", count: 1)]).svg.contains("&lt;script&gt;"))
        #expect([1, 4, 5, 6, 11, 99, 1234].map(BarChart.gridStep) == [1, 1, 1, 2, 2, 20, 500])
    }

    @Test func aCSRFTokenBelongsToItsSessionAndDoesNotRevealIt() {
        let token = ConsoleSessionGate.csrf(forSession: "session-a")
        #expect(token == ConsoleSessionGate.csrf(forSession: "session-a"))
        #expect(token != ConsoleSessionGate.csrf(forSession: "session-b"))
        #expect(!token.contains("session-a") && token.count == 43)
    }

    @Test func timesAreShownShortAndOtherTextAsItIs() {
        #expect(ConsoleText.display("2026-11-25T03:24:26+00:00") == "2026-11-25 03:24 UTC")
        #expect(ConsoleText.display("2026-11-22T05:28:28Z") == "2026-11-22 05:28 UTC")
        #expect(ConsoleText.display("2026-11-27T16:00:01.123456Z") == "2026-11-27 16:00 UTC", "the audit log's times too")
        #expect(ConsoleText.display("2026-11-25T03:24:26+01:00") == "2026-11-25T03:24:26+01:00", "only UTC is shortened")
        #expect(ConsoleText.display("TWOMES-0A1B2C") == "TWOMES-0A1B2C")
        #expect(ConsoleText.display("20261125T03:24:26+00:00") == "20261125T03:24:26+00:00")
        #expect(ConsoleText.display(nil, else: "never") == "never")
    }

    /// "1 week", never "1 weeks": a count's noun agrees with it wherever the console shows one.
    @Test func countsAgreeWithTheirNouns() {
        #expect(ConsoleText.counted(1, "week") == "1 week")
        #expect(ConsoleText.counted(0, "row") == "0 rows")
        #expect(ConsoleText.counted(117, "submission") == "117 submissions")
        #expect(ConsoleText.counted(1, "entry", plural: "entries") == "1 entry" && ConsoleText.counted(2, "entry", plural: "entries") == "2 entries")
        let oneWeek = SubmissionChart(counts: [.init(status: "Negative", country: "NL", week: "2026-W47", count: 1)]).svg
        #expect(oneWeek.contains(">1 submission in 1 week, from 2026-W47 to 2026-W47. 2026-W47: 1.</desc>"), "\(oneWeek)")
        #expect(
            ConsoleRoutes.detachment(.init(device: "D", detached_from: 812345, measurements_kept: 1))
                == "D left account 812345; its reading stays with that account.")
        #expect(ConsoleRoutes.detachment(.init(device: "D", detached_from: 812345, measurements_kept: 3)).contains("its 3 readings stay"))
    }
}
