import Foundation
import Testing

extension PlatformTests {
    /// The console's OpenSense, short-link, vault and COVID-figure lists (docs/console.md): searched and paged through
    /// GET forms whose values stay in the fields and the paging links, an OpenSense device's page, and hostile addresses
    /// answered with the form and the route's reason as a 4xx.
    @Suite("Console lists")
    struct ConsoleLists {
        typealias Browser = Console.Browser

        static func loggedIn() async throws -> Browser {
            let browser = Browser(try platform)
            try await browser.logIn(try platform.adminToken)
            return browser
        }

        /// The `href` of the element with `id`.
        static func href(_ page: Browser.Page, id: String) -> String? {
            guard let start = page.text.range(of: #"id="\#(id)" href=""#) else { return nil }
            return String(page.text[start.upperBound...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
        }

        @Test func openSenseDevicesAreSearchedPagedAndEachHasAPageOfItsDays() async throws {
            let browser = try await Self.loggedIn()
            let prefix = "cl-\(UUID().uuidString.prefix(8))"
            let ids = (0..<3).map { "\(prefix)-\($0)" }
            for id in ids { #expect(try await OpenSense.post("/register", [("device_id", id)]).status == 200) }
            try await OpenSense.upload(
                ids[0], [OpenSense.day(Date(), -2) + " 10:00", OpenSense.day(Date(), -2) + " 11:00", OpenSense.day(Date()) + " 00:00"])

            let query = Browser.escape(prefix + " ")
            let first = try await browser.get("/console/opensense?q=\(query)&limit=2")
            #expect(first.status == 200, "\(first.text)")
            #expect(first.text.contains(#"name="q" maxlength="128" value="\#(prefix) ""#), "the search stays in its field as typed")
            let devicePaths = ids.map { "/console/opensense/devices/\($0)" }
            #expect(first.text.contains(#"<a href="\#(devicePaths[0])">\#(ids[0])</a>"#) && first.text.contains(devicePaths[1]))
            #expect(!first.text.contains(devicePaths[2]), "a page of two")
            let next = try #require(Self.href(first, id: "opensense-next"), "\(first.text)")
            #expect(next.contains("q=\(prefix)%20") && next.contains("limit=2"), "the search and the page size stay in the link: \(next)")
            let second = try await browser.get(next)
            #expect(second.text.contains(devicePaths[2]) && !second.text.contains(devicePaths[0]), "\(second.text)")
            #expect(Self.href(second, id: "opensense-next") == nil, "the last page")
            #expect(second.text.contains(#">First devices</a>"#))
            let none = try await browser.get("/console/opensense?q=\(prefix)-none")
            #expect(none.status == 200 && none.text.contains("No device id starts with “\(prefix)-none”."))

            let device = try await browser.get(devicePaths[0])
            #expect(device.status == 200, "\(device.text)")
            #expect(
                device.text.contains("<h1>OpenSense device \(ids[0])</h1>")
                    && device.text.contains(#"id="nav-opensense" href="/console/opensense" aria-current="page""#))
            #expect(device.text.contains("3 batches in 30 days, 28 days without any"), "\(device.text)")
            // The same days drawn, the gaps among them described for screen readers.
            #expect(device.text.contains(#"<svg xmlns="http://www.w3.org/2000/svg" id="batches-chart""#), "\(device.text)")
            #expect(device.text.contains("3 batches from") && device.text.contains("28 days without (gaps)"), "\(device.text)")
            #expect(device.text.contains("<tr><td>\(OpenSense.day(Date(), -2))</td><td class=\"number\">2</td></tr>"))
            #expect(
                device.text.contains(
                    "<tr class=\"gap\"><td>\(OpenSense.day(Date(), -1))</td><td class=\"number\">0 <span class=\"hint\">(gap)</span>"))
            #expect(device.text.components(separatedBy: "<tr").count - 2 == 30, "a row for each of the 30 days")
            let quiet = try await browser.get(devicePaths[1])
            #expect(quiet.text.contains("0 batches in 30 days, 30 days without any") && quiet.text.contains("<dd>none yet</dd>"))

            // Hostile addresses: the form with the route's reason, or the error page; a 4xx, never a 500.
            let unknown = try await browser.get("/console/opensense/devices/nobody-\(UUID().uuidString)")
            #expect(unknown.status == 404 && unknown.text.contains("<h1>Not found</h1>"), "\(unknown.status) \(unknown.text)")
            let badCursor = try await browser.get("/console/opensense?q=\(prefix)&after=yesterday")
            #expect(badCursor.status == 400 && badCursor.text.contains("after must be a next_after value of an earlier page"))
            #expect(badCursor.text.contains(#"value="\#(prefix)""#), "the form keeps the search")
            let long = try await browser.get("/console/opensense?q=\(String(repeating: "x", count: 129))")
            #expect(long.status == 400 && long.text.contains("q must be at most 128 characters"))
            #expect(try await browser.get("/console/opensense?limit=0").status == 400)
        }

        @Test func shortLinksAreSearchedByCodeOrTitle() async throws {
            let browser = try await Self.loggedIn()
            let csrf = try #require(try await browser.get("/console/links").csrf)
            let title = "Search \(UUID().uuidString.prefix(8))"
            var codes: [String] = []
            for index in 0..<3 {
                let made = try await browser.post(
                    "/console/links", [("csrf", csrf), ("app_url", "warmtewachter://account/\(index)"), ("title", "\(title) & \(index)")])
                let url = try #require(Self.href(made, id: "short-link"), "\(made.text)")
                codes.append(String(url.split(separator: "/").last ?? ""))
            }
            let byTitle = try await browser.get("/console/links?q=\(Browser.escape(title.lowercased()))&limit=2")
            #expect(byTitle.status == 200)
            #expect(byTitle.text.contains(#"value="\#(title.lowercased())""#), "the search stays in its field")
            #expect(
                byTitle.text.contains("\(title) &amp; 2") && byTitle.text.contains("\(title) &amp; 1") && !byTitle.text.contains("\(title) &amp; 0"))
            let older = try await browser.get(try #require(Self.href(byTitle, id: "links-next")))
            #expect(older.text.contains("\(title) &amp; 0") && !older.text.contains("\(title) &amp; 2"), "\(older.text)")
            let byCode = try await browser.get("/console/links?q=\(codes[1].prefix(4).uppercased())")
            #expect(byCode.text.contains("<code>\(codes[1].prefix(4))…</code></td><td>\(title) &amp; 1</td>"), "\(byCode.text)")
            let refused = try await browser.get("/console/links?q=\(Browser.escape(title))&before=nowhere")
            #expect(refused.status == 400 && refused.text.contains("before must be a next_before value of an earlier page"))
        }

        @Test func theVaultsUsersArePaged() async throws {
            let platform = try platform
            let browser = try await Self.loggedIn()
            let csrf = try #require(try await browser.get("/console/vault").csrf)
            var ids: [Int] = []
            for index in 0..<2 {
                let email = "paged-\(index)-\(UUID().uuidString.prefix(8).lowercased())@example.org"
                let made = try await browser.post(
                    "/console/vault/users", [("csrf", csrf), ("email", email), ("name", "P"), ("password", "s3cret-paged")])
                #expect(made.status == 200, "\(made.text)")
                ids.append(try #require(Int(try platform.sql("SELECT id FROM auth.vault_users WHERE email = '\(email)'"))))
            }
            let page = try await browser.get("/console/vault?after=\(ids[0] - 1)&limit=1")
            #expect(page.text.contains(#"data-user="\#(ids[0])""#) && !page.text.contains(#"data-user="\#(ids[1])""#), "\(page.text)")
            let next = try #require(Self.href(page, id: "vault-next"))
            #expect(next == "/console/vault?after=\(ids[0])&limit=1", "the page size stays in the link")
            let second = try await browser.get(next)
            #expect(second.text.contains("data-user=") && !second.text.contains(#"data-user="\#(ids[0])""#), "\(second.text)")
            #expect(second.text.contains(">First users</a>"))
            let refused = try await browser.get("/console/vault?after=-1")
            #expect(refused.status == 400, "\(refused.text)")
        }

        @Test func theImportedCovidFiguresAreFilteredAndPaged() async throws {
            let browser = try await Self.loggedIn()
            let csrf = try #require(try await browser.get("/console/lemon").csrf)
            // Days no other test imports (the first recorded case was on 2019-12-01).
            let csv =
                "country,date,confirmed,deaths,recovered\r\nNL,2019-12-02,11,1,\r\nNL,2019-12-03,12,2,\r\nNL,2019-12-04,13,3,7\r\nBE,2019-12-03,5,0,\r\n"
            let imported = try await browser.postMultipart("/console/lemon/covid", [("csrf", csrf), ("source", "Console lists"), ("file", csv)])
            #expect(imported.text.contains("Imported 4 rows"), "\(imported.text)")

            let filtered = try await browser.get("/console/lemon?country=nl&from=2019-12-02&to=2019-12-28&limit=2")
            #expect(filtered.status == 200, "\(filtered.text)")
            #expect(filtered.text.contains(#"id="figures-country" name="country" maxlength="2" size="4" value="nl""#), "the filter stays as typed")
            #expect(filtered.text.contains(#"value="2019-12-02""#) && filtered.text.contains(#"value="2019-12-28""#))
            #expect(
                filtered.text.contains(
                    #"<tr><td>NL</td><td>2019-12-04</td><td class="number">13</td><td class="number">3</td><td class="number">7</td>"#),
                "newest first")
            #expect(filtered.text.contains("<td>NL</td><td>2019-12-03</td>") && !filtered.text.contains("<td>BE</td><td>2019-12-03</td>"))
            #expect(!filtered.text.contains("<td>2019-12-02</td>"), "a page of two")
            let next = try #require(Self.href(filtered, id: "figures-next"))
            #expect(next.contains("country=nl") && next.contains("from=2019-12-02") && next.contains("limit=2"), "\(next)")
            let older = try await browser.get(next)
            #expect(older.text.contains("<td>NL</td><td>2019-12-02</td><td class=\"number\">11</td>") && !older.text.contains("2019-12-04"))
            #expect(
                older.text.contains(#"<h2>Submissions by ISO week</h2>"#) && older.text.contains(#"id="import-covid""#), "the rest of the page stays")

            for (query, message) in [
                ("from=2019-13-01", "from must be a day (YYYY-MM-DD), not &#39;2019-13-01&#39;"), ("country=Netherlands", "is not an alpha2 code"),
                ("from=2019-12-29&to=2019-12-02", "from (2019-12-29) must not be after to (2019-12-02)"),
                ("after=2019-12-02", "after must be a next_after value of an earlier page"),
            ] {
                let refused = try await browser.get("/console/lemon?\(query)")
                #expect(refused.status == 400 && refused.text.contains(message), "\(query): \(refused.status) \(refused.text)")
                #expect(refused.text.contains(#"id="figures-filter""#), "the form is shown to correct it")
            }
        }
    }
}
