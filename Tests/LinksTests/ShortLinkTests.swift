import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianRuntime
import Foundation
import ServiceTestSupport
import Testing
@testable import LinksService

@Suite("Short links: codes, input checks, user agents and pages")
struct ShortLinkTests {
    @Test func codesAreSixteenUnambiguousURLSafeCharactersAndNeverRepeat() {
        let codes = (0..<2000).map { _ in ShortLinkCode.generate() }
        #expect(Set(codes).count == codes.count)
        for code in codes {
            #expect(code.count == 16)
            #expect(code.allSatisfy { "0123456789abcdefghjkmnpqrstvwxyz".contains($0) })
        }
        // Every character of the alphabet shows up: nothing is stuck.
        #expect(Set(codes.joined()).count == 32)
    }

    @Test func codesAreLookedUpInLowerCaseAndNonsenseIsNoCode() {
        #expect(ShortLinkCode.normalized("ABCDEFGHJK") == "abcdefghjk")
        #expect(ShortLinkCode.normalized("abc") == nil)
        #expect(ShortLinkCode.normalized("abcdefghjk'--") == nil)
        #expect(ShortLinkCode.normalized("abcdefghil") == nil, "i and l are not in the alphabet")
        #expect(ShortLinkCode.normalized(String(repeating: "a", count: 65)) == nil)
    }

    @Test(arguments: [
        ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36", true),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
            true
        ),
        ("Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1", true),
        ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36", false),
        ("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15", false),
        ("curl/8.5.0", false),
    ])
    func phonesAndTabletsAreToldFromDesktops(userAgent: String, mobile: Bool) {
        #expect(UserAgent.isMobile(userAgent) == mobile)
    }

    @Test func noUserAgentIsADesktop() {
        #expect(!UserAgent.isMobile(nil))
    }

    static let settings = try! ShortLinkSettings()

    @Test func aValidInputGetsTheWarmteWachterStoresByDefaultAndATrimmedTitle() throws {
        let input = try ShortLinkInput(appURL: "warmtewachter://activate?token=abc", title: "  Activate  ", ttlSeconds: 3600)
            .validated(names: .rpc, defaults: Self.settings)
        #expect(input.title == "Activate")
        #expect(input.androidStoreURL == "https://play.google.com/store/apps/details?id=nl.windesheim.energietransitie.warmtewachter")
        #expect(input.iosStoreURL == "https://apps.apple.com/app/id1563201993")
        let blankTitle = try ShortLinkInput(appURL: "https://example.org/a", title: "   ").validated(names: .rpc, defaults: Self.settings)
        #expect(blankTitle.title == nil)
    }

    @Test(arguments: [
        (ShortLinkInput(appURL: "javascript:alert(1)"), "appURL", "invalid_url"),
        (ShortLinkInput(appURL: "JavaScript:alert(1)"), "appURL", "invalid_url"),
        (ShortLinkInput(appURL: "data:text/html,<b>x</b>"), "appURL", "invalid_url"),
        (ShortLinkInput(appURL: "https://exa mple.org/"), "appURL", "invalid_url"),
        (ShortLinkInput(appURL: "https://example.org/\r\nSet-Cookie: x=1"), "appURL", "invalid_url"),
        (ShortLinkInput(appURL: "/relative/path"), "appURL", "invalid_url"),
        (ShortLinkInput(appURL: "https:///no-host"), "appURL", "invalid_url"),
        (ShortLinkInput(appURL: ""), "appURL", "invalid_url"),
        (ShortLinkInput(appURL: "https://example.org/" + String(repeating: "a", count: 2048)), "appURL", "invalid_url"),
        (ShortLinkInput(appURL: "https://example.org/", title: String(repeating: "é", count: 201)), "title", "invalid_title"),
        (ShortLinkInput(appURL: "https://example.org/", title: "a\u{0}b"), "title", "invalid_title"),
        (ShortLinkInput(appURL: "https://example.org/", ttlSeconds: 0), "ttlSeconds", "invalid_ttl"),
        (ShortLinkInput(appURL: "https://example.org/", ttlSeconds: 40_000_000), "ttlSeconds", "invalid_ttl"),
        (ShortLinkInput(appURL: "https://example.org/", androidStoreURL: "market://details?id=x"), "androidStoreURL", "invalid_url"),
        (ShortLinkInput(appURL: "https://example.org/", iosStoreURL: "javascript:x"), "iosStoreURL", "invalid_url"),
    ])
    func badInputsAre400sNamingTheMember(input: ShortLinkInput, member: String, reason: String) {
        do {
            _ = try input.validated(names: .rpc, defaults: Self.settings)
            Issue.record("accepted \(input)")
        } catch let error as RPCError {
            #expect(error.code == .badRequest)
            #expect(error.reason == reason)
            #expect(error.message.hasPrefix(member + " must"), "\(error.message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func adminErrorsUseTheAdminAPIsNames() {
        #expect(
            throws: RPCError.badRequest(
                "ttl_seconds must be from 1 to 31622400 seconds (a year and a day), not 0", reason: "invalid_ttl")
        ) {
            try ShortLinkInput(appURL: "https://example.org/", ttlSeconds: 0).validated(names: .admin, defaults: Self.settings)
        }
    }

    static func adminLink(_ body: JSONValue) throws -> ShortLinkInput {
        try AdminShortLinkRequest.decoding.decode(AdminShortLinkRequest.self, from: JSONValueEncoder().encode(HTTPInput(body: body))).link
    }

    @Test func theAdminBodyIsAnObjectWithSnakeCaseMembers() throws {
        let input = try Self.adminLink(["app_url": "https://example.org/x", "title": "T", "ttl_seconds": 60])
        #expect(input == ShortLinkInput(appURL: "https://example.org/x", title: "T", ttlSeconds: 60))
        #expect(throws: RPCError.badRequest("app_url is required", reason: "invalid_body")) {
            try Self.adminLink(["title": "T"])
        }
        #expect(throws: RPCError.badRequest("ttl_seconds must be an integer", reason: "invalid_body")) {
            try Self.adminLink(["app_url": "https://example.org/x", "ttl_seconds": "soon"])
        }
        // Numbers that no integer field takes are named as such, not called invalid JSON.
        for number in [JSONValue.double(1.5), .double(1e20)] {
            #expect(throws: RPCError.badRequest("ttl_seconds must be an integer", reason: "invalid_body")) {
                try Self.adminLink(["app_url": "https://example.org/x", "ttl_seconds": number])
            }
        }
        let notAnObject = RPCError.badRequest("The body must be a JSON object such as {\"app_url\": \"https://…\"}", reason: "malformed_body")
        #expect(throws: notAnObject) { try Self.adminLink(.null) }
        #expect(throws: notAnObject) { try Self.adminLink(["x"]) }
        // A typed request reads back as itself.
        let link = AdminShortLinkRequest(
            link: ShortLinkInput(appURL: "warmtewachter://x", title: "T", ttlSeconds: 5, iosStoreURL: "https://apps.apple.com/x"))
        #expect(try AdminShortLinkRequest.decoding.decode(AdminShortLinkRequest.self, from: JSONValueEncoder().encode(link)) == link)
    }

    /// The list's cursor is `next_before` as it was given; a visit carries the browser's User-Agent, which the route forwards.
    @Test func theListCursorAndAVisitsUserAgentAreRead() throws {
        let digest = String(repeating: "Ab", count: 32)
        let query = try RoutedRequests.read(ShortLinksQuery.self, query: ["before": ["1795321646000000-\(digest)"], "limit": ["5"]])
        #expect(query == ShortLinksQuery(limit: 5, before: .init(micros: 1_795_321_646_000_000, digest: digest.lowercased())))
        #expect(
            RoutedRequests.problem(ShortLinksQuery.self, query: ["before": ["12-\(digest.dropLast())"]]) == [
                "400", "before must be a next_before value of an earlier page",
            ])
        #expect(RoutedRequests.problem(ShortLinksQuery.self, query: ["limit": ["0"]]) == ["400", "limit must be a whole number from 1 to 1000"])
        let visit = ShortLinkVisit(code: "abc", userAgent: "Mozilla/5.0 (iPhone)")
        #expect(try ShortLinkVisit.decoding.decode(ShortLinkVisit.self, from: JSONValueEncoder().encode(visit)) == visit)
        #expect(try RoutedRequests.read(ShortLinkVisit.self, path: ["code": "abc"]).userAgent == nil)
    }

    /// `q` finds a code only by as much of it as the list shows: one character more per query would spell the code out.
    @Test func theSearchMatchesCodesOnlyAsFarAsTheListShowsThem() throws {
        #expect(ShortLinkDirectory.shownCodePrefix("FM0D") == "fm0d")
        #expect(ShortLinkDirectory.shownCodePrefix("fm0d…") == "fm0d")
        #expect(ShortLinkDirectory.shownCodePrefix("f") == "f")
        #expect(ShortLinkDirectory.shownCodePrefix("fm0dk") == nil)
        #expect(ShortLinkDirectory.shownCodePrefix("fm0dk…") == nil)
        #expect(ShortLinkDirectory.shownCodePrefix("Zoek") == nil, "o is not in the codes' alphabet: a title, not a code")
        #expect(ShortLinkDirectory.shownCodePrefix("…") == nil)
        #expect(try RoutedRequests.read(ShortLinksQuery.self, query: ["q": ["  Activate "]]).search == "Activate")
        #expect(try RoutedRequests.read(ShortLinksQuery.self, query: ["q": [" "]]).search == nil)
        #expect(
            RoutedRequests.problem(ShortLinksQuery.self, query: ["q": [String(repeating: "x", count: 201)]]) == [
                "400", "q must be at most 200 characters",
            ])
    }

    @Test func theBaseURLLosesItsTrailingSlashAndMustBeHTTP() throws {
        #expect(try ShortLinkSettings(publicBaseURL: "https://links.example.org/").url(code: "abc") == "https://links.example.org/l/abc")
        #expect(throws: ConfigurationError.self) { try ShortLinkSettings(publicBaseURL: "links.example.org") }
    }

    @Test func theLandingPageEscapesEverythingAndForbidsScripts() throws {
        let link = StoredShortLink(
            appURL: #"warmtewachter://x?a=1&b="2"><script>"#, title: "<img src=x onerror=alert(1)> & co",
            androidStoreURL: "https://play.google.com/store/apps/details?id=a&hl=nl", iosStoreURL: "https://apps.apple.com/app/id1", expired: false)
        let reply = ShortLinkPages.landing(link, code: "abcdefghjkmnpqrs", shortURL: "https://127.0.0.1:8443/l/abcdefghjkmnpqrs")
        let html = String(decoding: try #require(Data(base64Encoded: reply.body)), as: UTF8.self)
        #expect(reply.status == 200)
        #expect(reply.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(reply.headers["Cache-Control"] == "no-store")
        #expect(reply.headers["Content-Security-Policy"]?.hasPrefix("default-src 'none'") == true)
        #expect(!html.contains("<script"))
        #expect(!html.contains("<img src=x"))
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt; &amp; co"))
        #expect(html.contains(#"href="warmtewachter://x?a=1&amp;b=&quot;2&quot;&gt;&lt;script&gt;""#))
        #expect(html.contains(#"href="https://play.google.com/store/apps/details?id=a&amp;hl=nl""#))
        #expect(html.contains(#"<p class="code">abcdefghjkmnpqrs</p>"#))
    }

    @Test func theQRCodeOnTheLandingPageOpensTheShortLink() throws {
        let link = StoredShortLink(
            appURL: "https://example.org", title: nil, androidStoreURL: "https://a.example", iosStoreURL: "https://i.example", expired: false)
        let reply = ShortLinkPages.landing(link, code: "abcdefghjkmnpqrs", shortURL: "https://127.0.0.1:8443/l/abcdefghjkmnpqrs")
        let html = String(decoding: try #require(Data(base64Encoded: reply.body)), as: UTF8.self)
        let encoded = try #require(html.firstMatch(of: /data:image\/svg\+xml;base64,([A-Za-z0-9+\/=]+)/)?.1)
        let svg = String(decoding: try #require(Data(base64Encoded: String(encoded))), as: UTF8.self)
        #expect(svg.contains("crispEdges"))
        if Scanner.rsvgConvert != nil {
            #expect(Scanner.matches(try Scanner.decode(Scanner.rasterize(svg: svg)), Array("https://127.0.0.1:8443/l/abcdefghjkmnpqrs".utf8)))
        }
    }

    @Test func notFoundAndExpiredArePagesForPeople() throws {
        let missing = ShortLinkPages.notFound()
        #expect(missing.status == 404)
        #expect(String(decoding: try #require(Data(base64Encoded: missing.body)), as: UTF8.self).contains("<h1>Link not found</h1>"))
        let expired = ShortLinkPages.expired()
        #expect(expired.status == 410)
        #expect(String(decoding: try #require(Data(base64Encoded: expired.body)), as: UTF8.self).contains("<h1>This link has expired</h1>"))
    }

    @Test func aPhoneIsRedirectedWithoutCaching() {
        let reply = ShortLinkPages.redirect(to: "warmtewachter://activate")
        #expect(reply.status == 302)
        #expect(reply.headers["Location"] == "warmtewachter://activate")
        #expect(reply.headers["Cache-Control"] == "no-store")
    }
}
