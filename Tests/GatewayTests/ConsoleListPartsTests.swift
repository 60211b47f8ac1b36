import CustodianContracts
import Foundation
import HTTPTypes
import Testing

@testable import GatewayKit

/// The lists' searches and paging as the console reads them from a page's address, and an OpenSense device's days. The
/// pages themselves: IntegrationTests' ConsoleListTests and the browser test.
@Suite("Console list parts")
struct ConsoleListPartsTests {
    /// Links carry only RFC 3986's unreserved characters as they are: a cursor's `-` stays, a space, `&` or a letter
    /// beyond ASCII is percent-encoded (a title searched for in the short links may hold any).
    @Test func linksEscapeAllButTheUnreservedCharacters() {
        #expect(ConsoleText.queryEscaped("TWOMES-0D45DF_1.x~") == "TWOMES-0D45DF_1.x~")
        #expect(ConsoleText.queryEscaped("café a&b=c/d") == "caf%C3%A9%20a%26b%3Dc%2Fd")
    }

    @Test func aListsQueryIsReadByItsRoutesInputAndKeptInItsLinks() throws {
        let query = ConsoleListQuery<OpenSenseDevicesQuery>(query: "q=a+b%26c&after=1700000000000000-3&other=x", names: ["q", "after", "limit"])
        let input = try query.input.get()
        #expect(input.prefix == "a b&c", "as the route reads it")
        #expect(input.after == .init(micros: 1_700_000_000_000_000, row: 3))
        #expect(query.typed == ["q": "a b&c", "after": "1700000000000000-3"], "only the list's own parameters")
        #expect(query.link("/console/opensense", "after", "5-6") == "/console/opensense?after=5-6&q=a%20b%26c", "the search kept, escaped")
        #expect(query.link("/console/opensense", "after", nil) == nil, "no next page on the last")
        #expect(query.firstLink("/console/opensense", "after") == "/console/opensense?q=a%20b%26c")

        let first = ConsoleListQuery<OpenSenseDevicesQuery>(query: "q=&after=", names: ["q", "after"])
        #expect(first.typed.isEmpty, "empty fields of a GET form are no filter")
        #expect(first.firstLink("/console/opensense", "after") == nil)
        #expect(try first.input.get().prefix == nil)
    }

    /// What the route would refuse is refused before it is asked, in its words, as a 400.
    @Test(arguments: [
        ("after=yesterday", "after must be a next_after value of an earlier page"),
        ("q=a&q=b", "Give the query parameter 'q' once, not 2 times"),
        ("q=\(String(repeating: "x", count: 129))", "q must be at most 128 characters"),
        ("limit=0", "limit must be a whole number from 1 to 1000"),
    ])
    func aBadListQueryIsTheRoutesRefusal(query: String, message: String) {
        let read = ConsoleListQuery<OpenSenseDevicesQuery>(query: query, names: ["q", "after", "limit"])
        guard case .failure(let failure) = read.input else {
            Issue.record("\(query) was read")
            return
        }
        #expect(failure.status == .badRequest)
        #expect(failure.message == message)
    }

    @Test func covidFiguresAreFilteredAsTheirRouteReadsTheFilter() throws {
        let read = ConsoleListQuery<CovidFiguresQuery>(query: "country=za&from=2020-05-01&to=2020-05-31", names: ["country", "from", "to", "after"])
        #expect(try read.input.get() == CovidFiguresQuery(country: "ZA", from: "2020-05-01", to: "2020-05-31"))
        #expect(read.typed["country"] == "za", "the field shows what was typed")
        for (query, message) in [
            ("from=2020-13-01", "from must be a day (YYYY-MM-DD), not '2020-13-01'"),
            ("from=2020-05-02&to=2020-05-01", "from (2020-05-02) must not be after to (2020-05-01)"),
            ("country=ZAF", "country 'ZAF' is not an alpha2 code (two letters)"),
            ("after=2020-05-01", "after must be a next_after value of an earlier page"),
        ] {
            let refused = ConsoleListQuery<CovidFiguresQuery>(query: query, names: ["country", "from", "to", "after"])
            guard case .failure(let failure) = refused.input else {
                Issue.record("\(query) was read")
                continue
            }
            #expect(failure.status == .badRequest && failure.message == message, "\(query): \(failure.message)")
        }
    }

    @Test func everyDayOfADevicesPageIsShownAndDaysWithoutBatchesAreGaps() {
        let days = ConsoleRoutes.everyDay(from: "2026-02-27", to: "2026-03-02", counts: [("2026-02-28", 4), ("2026-03-02", 1)])
        #expect(days.map(\.date) == ["2026-02-27", "2026-02-28", "2026-03-01", "2026-03-02"], "across a month's end")
        #expect(days.map(\.count) == [0, 4, 0, 1])
        #expect(days.map(\.gap) == [true, false, true, false])
        #expect(ConsoleRoutes.everyDay(from: "2026-03-02", to: "2026-03-02", counts: []).map(\.gap) == [true])
        // An answer that cannot be read as days is shown as it came, never trapped on.
        #expect(ConsoleRoutes.everyDay(from: "x", to: "y", counts: [("d", 2)]).map(\.count) == [2])
        #expect(ConsoleRoutes.everyDay(from: "2026-03-02", to: "2026-03-01", counts: []).isEmpty)
        #expect(ConsoleRoutes.everyDay(from: "2000-01-01", to: "2026-01-01", counts: []).count == 366, "a year and a day at most")
        #expect(ConsoleRoutes.openSenseDevicePath("a/b c") == "/console/opensense/devices/a%2Fb%20c")
    }
}
