import CustodianContracts
import CustodianHTTP
import CustodianRPC
import Foundation
import LinksService
import Logging
import Testing

extension PlatformTests {
    @Suite("Links: QR codes and short links through the gateway")
    struct Links {
        static let devicePayload = #"{"ver":"v1","name":"TWOMES-0D45DF","pop":"810667973","transport":"ble"}"#
        static let iPhone =
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
        static let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36"
        static let desktop = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36"

        @Test(arguments: ["L", "M", "Q", "H"])
        func anAdminGetsAPNGThatZbarimgReadsBack(level: String) async throws {
            let path = "/admin/v1/qr?data=\(QRScanner.queryEncode(Self.devicePayload))&format=png&ec=\(level)&size=4&margin=4"
            let reply = try await platform.request(.GET, path, admin: true)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.headers.first(name: "Content-Type") == "image/png")
            #expect(reply.headers.first(name: "Cache-Control") == "no-store")
            #expect(reply.body.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
            #expect(try QRScanner.decode(reply.body) == Array(Self.devicePayload.utf8))
        }

        @Test func theDefaultsAndAnyUTF8TextComeBackByteForByte() async throws {
            let text = "Grüße a+b = 温度 🌡️"
            let reply = try await platform.request(.GET, "/admin/v1/qr?data=\(QRScanner.queryEncode(text))", admin: true)
            #expect(reply.status == 200)
            #expect(reply.headers.first(name: "Content-Type") == "image/png")
            #expect(try QRScanner.decode(reply.body) == Array(text.utf8))
            // As forms and `curl -G --data-urlencode` write queries: '+' is a space, %2B a plus.
            let form = try await platform.request(.GET, "/admin/v1/qr?data=a+b%2Bc", admin: true)
            #expect(try QRScanner.decode(form.body) == Array("a b+c".utf8))
        }

        /// The largest symbol (version 40) at 32 pixels a module: 5920 pixels a side, deflated to a few hundred KiB.
        @Test func aLargeSymbolAtALargeSizeIsAPNG() async throws {
            let payload = String(repeating: "x", count: 2953)
            let reply = try await platform.request(.GET, "/admin/v1/qr?data=\(payload)&ec=L&size=32", admin: true)
            #expect(reply.status == 200, "\(reply.text.prefix(300))")
            #expect(reply.headers.first(name: "Content-Type") == "image/png")
            // IHDR's width, big-endian after the signature, the chunk's length and its type.
            #expect(reply.body.count > 24 && reply.body[16..<20].reduce(0) { $0 << 8 | Int($1) } == 5920)
            #expect(try QRScanner.decode(reply.body) == Array(payload.utf8))
        }

        @Test func svgComesAsSVG() async throws {
            let reply = try await platform.request(.GET, "/admin/v1/qr?data=hello&format=svg&size=10&margin=2", admin: true)
            #expect(reply.status == 200)
            #expect(reply.headers.first(name: "Content-Type") == "image/svg+xml")
            #expect(reply.headers.first(name: "Cache-Control") == "no-store")
            // "hello" is a version-1 symbol: 21 modules and 2 on each side, 10 pixels each.
            #expect(reply.text.contains(#"width="250" height="250" viewBox="0 0 25 25" shape-rendering="crispEdges""#))
        }

        @Test(arguments: [
            ("format=png", "missing_data", "The query parameter 'data' is required: the text to encode"),
            ("data=a&format=gif", "invalid_format", "format must be png or svg, not 'gif'"),
            ("data=a&ec=X", "invalid_error_correction", "ec must be L, M, Q or H, not 'X'"),
            ("data=a&size=0", "invalid_module_size", "size must be a whole number from 1 to 64 (pixels per module), not '0'"),
            ("data=a&size=65", "invalid_module_size", "size must be a whole number from 1 to 64 (pixels per module), not '65'"),
            ("data=a&size=big", "invalid_module_size", "size must be a whole number from 1 to 64 (pixels per module), not 'big'"),
            ("data=a&margin=17", "invalid_margin", "margin must be a whole number from 0 to 16 (modules), not '17'"),
            ("data=a&data=b", "repeated_parameter", "Give the query parameter 'data' once, not 2 times"),
            ("data=a&level=H", "unknown_parameter", "Unknown query parameter 'level'; the parameters are data, format, ec, size, margin"),
            (
                "data=\(String(repeating: "x", count: 1274))&ec=H", "payload_too_long",
                "The data is 1274 bytes long; a QR code with error correction H holds at most 1273 bytes (use a lower level or less data)"
            ),
            (
                "data=\(String(repeating: "x", count: 2953))&ec=L&size=64", "image_too_large",
                "The PNG would be 11840 pixels wide (185 modules of 64 pixels); at most 8192 are allowed, "
                    + "so use a smaller module size or margin, or SVG"
            ),
        ])
        func badQueriesAre400sInTheAdminShape(query: String, reason: String, message: String) async throws {
            let reply = try await platform.request(.GET, "/admin/v1/qr?\(query)", admin: true)
            #expect(reply.status == 400)
            #expect(reply.headers.first(name: "Content-Type") == "application/json")
            #expect(reply.json?["error"] as? [String: String] == ["reason": reason, "message": message])
        }

        @Test func qrCodesNeedAnAdminToken() async throws {
            let reply = try await platform.request(.GET, "/admin/v1/qr?data=a")
            #expect(reply.status == 401)
            #expect(reply.text == #"{"error":{"message":"Authentication required","reason":"unauthenticated"}}"# + "\n")
        }

        /// Creates a short link through the admin route and returns its code.
        static func createLink(_ body: String) async throws -> String {
            let reply = try await platform.request(.POST, "/admin/v1/links", json: body, admin: true)
            #expect(reply.status == 201, "\(reply.text)")
            let code = try #require(reply.json?["code"] as? String)
            #expect(reply.json?["url"] as? String == "\(try platform.baseURL)/l/\(code)")
            #expect(reply.json?.count == 2)
            return code
        }

        @Test func aShortLinkSendsPhonesIntoTheAppAndShowsDesktopsTheCode() async throws {
            let appURL = "warmtewachter://activate?token=tok-123&x=1"
            let code = try await Self.createLink(#"{"app_url": "\#(appURL)", "title": "Activate <b>your</b> account", "ttl_seconds": 3600}"#)
            #expect(code.count == 16)
            #expect(code.allSatisfy { "0123456789abcdefghjkmnpqrstvwxyz".contains($0) })

            for userAgent in [Self.iPhone, Self.android] {
                let phone = try await platform.request(.GET, "/l/\(code)", headers: [("User-Agent", userAgent)])
                #expect(phone.status == 302)
                #expect(phone.headers.first(name: "Location") == appURL)
                #expect(phone.headers.first(name: "Cache-Control") == "no-store")
            }

            let desktop = try await platform.request(.GET, "/l/\(code)", headers: [("User-Agent", Self.desktop)])
            #expect(desktop.status == 200)
            #expect(desktop.headers.first(name: "Content-Type") == "text/html; charset=utf-8")
            #expect(desktop.text.contains(#"<p class="code">\#(code)</p>"#))
            #expect(desktop.text.contains("<h1>Activate &lt;b&gt;your&lt;/b&gt; account</h1>"))
            #expect(desktop.text.contains(#"href="https://play.google.com/store/apps/details?id=nl.windesheim.energietransitie.warmtewachter""#))
            #expect(desktop.text.contains(#"href="https://apps.apple.com/app/id1563201993""#))
            #expect(desktop.text.contains(#"href="warmtewachter://activate?token=tok-123&amp;x=1""#))
            // A client without a user agent is no phone either; a code typed in capitals still works.
            let bare = try await platform.request(.GET, "/l/\(code.uppercased())")
            #expect(bare.status == 200)

            // The app URL (here with a token in it) is kept sealed, not as text.
            let stored = try platform.sql(
                "SELECT app_url IS NULL, length(app_url_sealed) > 0, title, expires_at BETWEEN now() + interval '59 minutes' AND now() + interval '61 minutes' FROM links.short_links WHERE code = '\(code)'"
            )
            #expect(stored == "t|t|Activate <b>your</b> account|t")
            #expect(try platform.rows(of: "links.short_links", holding: "tok-123", in: "app_url_sealed") == 0)
        }

        @Test func unknownAndExpiredLinksArePagesForPeople() async throws {
            let unknown = try await platform.request(.GET, "/l/0000000000000000", headers: [("User-Agent", Self.iPhone)])
            #expect(unknown.status == 404)
            #expect(unknown.headers.first(name: "Content-Type") == "text/html; charset=utf-8")
            #expect(unknown.text.contains("<h1>Link not found</h1>"))
            let nonsense = try await platform.request(.GET, "/l/%27%3B%20DROP%20TABLE%20x")
            #expect(nonsense.status == 404)
            #expect(nonsense.text.contains("<h1>Link not found</h1>"))

            let code = try await Self.createLink(#"{"app_url": "warmtewachter://activate?token=old"}"#)
            #expect(try platform.sql("SELECT expires_at IS NULL FROM links.short_links WHERE code = '\(code)'") == "t")
            _ = try platform.sql("UPDATE links.short_links SET expires_at = now() - interval '1 second' WHERE code = '\(code)'")
            for userAgent in [Self.iPhone, Self.desktop] {
                let expired = try await platform.request(.GET, "/l/\(code)", headers: [("User-Agent", userAgent)])
                #expect(expired.status == 410)
                #expect(expired.headers.first(name: "Content-Type") == "text/html; charset=utf-8")
                #expect(expired.text.contains("<h1>This link has expired</h1>"))
            }
        }

        @Test(arguments: [
            (#"{"title": "x"}"#, "invalid_body", "app_url is required"),
            (#"{"app_url": 5}"#, "invalid_body", "app_url must be a string"),
            (
                #"{"app_url": "javascript:alert(1)"}"#, "invalid_url",
                "app_url must be an absolute URL such as https://example.org/a/b or warmtewachter://activate?token=…"
            ),
            (
                #"{"app_url": "https://example.org/", "ttl_seconds": 0}"#, "invalid_ttl",
                "ttl_seconds must be from 1 to 31622400 seconds (a year and a day), not 0"
            ),
            (
                #"{"app_url": "https://example.org/", "ios_store_url": "itms://x"}"#, "invalid_url",
                "ios_store_url must be an absolute http(s) URL such as https://example.org/app"
            ),
            (#"[1, 2]"#, "malformed_body", #"The body must be a JSON object such as {"app_url": "https://…"}"#),
            (#"{"app_url": "#, "malformed_body", "The request body is not valid JSON"),
        ])
        func badShortLinkRequestsAre400sInTheAdminShape(body: String, reason: String, message: String) async throws {
            let reply = try await platform.request(.POST, "/admin/v1/links", json: body, admin: true)
            #expect(reply.status == 400)
            #expect(reply.json?["error"] as? [String: String] == ["reason": reason, "message": message])
            // Nothing stored (no other test links to these).
            #expect(
                try platform.sql("SELECT count(*) FROM links.short_links WHERE app_url IN ('https://example.org/', 'javascript:alert(1)')") == "0")
        }

        @Test func shortLinksNeedAnAdminToken() async throws {
            let reply = try await platform.request(.POST, "/admin/v1/links", json: #"{"app_url": "https://example.org/"}"#)
            #expect(reply.status == 401)
        }

        /// What `devices` and `vault` will do: call the links service over its socket with the public input types.
        @Test func otherServicesRenderQRCodesAndMintShortLinksOverRPC() async throws {
            let platform = try platform
            let client = RPCClient(services: ["links": .directory(platform.dataDirectory + "/run/links")], logger: Logger(label: "links-tests"))
            defer { client.shutdown() }
            let context = CallContext.background("links-tests")

            let image = try await client.call(
                "links", "links.qr.render", input: QRRenderInput(payload: Self.devicePayload, format: .png, errorCorrection: .Q, moduleSize: 3),
                context: context, as: RawHTTPReply.self)
            #expect(image.headers["Content-Type"] == "image/png")
            #expect(try QRScanner.decode(try #require(Data(base64Encoded: image.body))) == Array(Self.devicePayload.utf8))

            let link = try await client.call(
                "links", "links.short.create",
                input: ShortLinkInput(appURL: "warmtewachter://device?id=7", title: "Set up your device", ttlSeconds: 60),
                context: context, as: ShortLink.self)
            #expect(link.url == "\(platform.baseURL)/l/\(link.code)")
            let phone = try await platform.request(.GET, "/l/\(link.code)", headers: [("User-Agent", Self.android)])
            #expect(phone.headers.first(name: "Location") == "warmtewachter://device?id=7")

            await #expect(
                throws: RPCError.badRequest(
                    "appURL must be an absolute URL such as https://example.org/a/b or warmtewachter://activate?token=…", reason: "invalid_url")
            ) {
                _ = try await client.call(
                    "links", "links.short.create", input: ShortLinkInput(appURL: "data:text/html,x"), context: context, as: ShortLink.self)
            }
        }

        @Test func theListShowsLinksNewestFirstWithoutTheirCodes() async throws {
            let platform = try platform
            var codes: [String] = []
            for index in 0..<3 {
                let made = try await platform.request(
                    .POST, "/admin/v1/links", json: #"{"app_url":"warmtewachter://list/\#(index)","title":"list \#(index)"}"#, admin: true)
                codes.append(try #require(made.json?["code"] as? String))
            }
            let all = try await platform.request(.GET, "/admin/v1/links?limit=1000", admin: true)
            #expect(all.status == 200, "\(all.text)")
            for code in codes { #expect(!all.text.contains(code), "only the start of a code is listed") }
            let titles = (all.json?["links"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }.filter { $0.hasPrefix("list ") }
            #expect(Array(titles.prefix(3)) == ["list 2", "list 1", "list 0"], "newest first")
            #expect(
                (all.json?["links"] as? [[String: Any]])?.first { $0["title"] as? String == "list 0" }?["code_prefix"] as? String
                    == "\(codes[0].prefix(4))…")

            // A page of one and the next: the cursor leads on to an older link and does not give a code away.
            let first = try await platform.request(.GET, "/admin/v1/links?limit=1", admin: true)
            let cursor = try #require(first.json?["next_before"] as? String)
            let second = try await platform.request(.GET, "/admin/v1/links?limit=1&before=\(cursor)", admin: true)
            let newer = try #require((first.json?["links"] as? [[String: Any]])?.first?["created_at"] as? String)
            let older = try #require((second.json?["links"] as? [[String: Any]])?.first?["created_at"] as? String)
            #expect(older <= newer)
            #expect(second.json?["links"] as? NSArray != first.json?["links"] as? NSArray)
            for code in codes { #expect(!cursor.contains(code)) }
            let bad = try await platform.request(.GET, "/admin/v1/links?before=\(codes[0])", admin: true)
            #expect(bad.status == 400 && bad.text.contains("before must be a next_before value of an earlier page"))
        }

        /// The list's titles and shown codes for a query, and its cursor.
        static func listed(_ query: String) async throws -> (titles: [String], codes: [String], next: String?) {
            let reply = try await platform.request(.GET, "/admin/v1/links?\(query)", admin: true)
            #expect(reply.status == 200, "\(query): \(reply.text)")
            let links = reply.json?["links"] as? [[String: Any]] ?? []
            return (
                links.compactMap { $0["title"] as? String }, links.compactMap { $0["code_prefix"] as? String }, reply.json?["next_before"] as? String
            )
        }

        static func q(_ text: String) -> String { "q=" + text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }

        @Test func theListIsSearchedByTheStartOfATitleInAnyCaseOrOfACodeAsFarAsTheListShowsIt() async throws {
            let tag = "Zoek \(UUID().uuidString.prefix(8))"
            var codes: [String] = []
            for title in ["\(tag) een", "\(tag) twee", "\(tag) drie", "Ander \(tag)"] {
                codes.append(try await Self.createLink(#"{"app_url":"warmtewachter://search","title":"\#(title)"}"#))
            }
            #expect(try await Self.listed(Self.q(tag.uppercased())).titles == ["\(tag) drie", "\(tag) twee", "\(tag) een"], "newest first")
            #expect(try await Self.listed(Self.q(tag.lowercased() + " T")).titles == ["\(tag) twee"])
            #expect(try await Self.listed(Self.q("nothing starts so \(tag)")).titles.isEmpty)

            // A code by as much of it as the list shows, typed in capitals or copied with its ellipsis.
            let shown = String(codes[0].prefix(4))
            for query in [shown, shown.uppercased(), shown + "…", String(shown.prefix(2))] {
                #expect(try await Self.listed(Self.q(query) + "&limit=1000").codes.contains(shown + "…"), "\(query)")
            }
            // One character more would tell, a character at a time, how a code goes on: it matches no code.
            #expect(try await Self.listed(Self.q(String(codes[0].prefix(5)))).titles.isEmpty)

            // Pages of one through the matches, each cursor leading on.
            var titles: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let page = try await Self.listed(Self.q(tag) + "&limit=1" + (cursor.map { "&before=\($0)" } ?? ""))
                titles += page.titles
                cursor = page.next
                pages += 1
            } while cursor != nil && pages < 10
            #expect(titles == ["\(tag) drie", "\(tag) twee", "\(tag) een"])
        }

        @Test(arguments: [
            ("q=\(String(repeating: "x", count: 201))", "q must be at most 200 characters"),
            ("q=a&q=b", "Give the query parameter 'q' once, not 2 times"),
            ("limit=0", "limit must be a whole number from 1 to 1000"),
            // Past what PostgreSQL's interval arithmetic takes: a 400 that names the parameter, not the database's refusal.
            ("before=9223372036854775807-\(String(repeating: "0", count: 64))", "before must be a next_before value of an earlier page"),
        ])
        func badListQueriesAre400sInTheAdminShape(query: String, message: String) async throws {
            let reply = try await platform.request(.GET, "/admin/v1/links?\(query)", admin: true)
            #expect(reply.status == 400, "\(query): \(reply.text)")
            #expect((reply.json?["error"] as? [String: Any])?["message"] as? String == message, "\(reply.text)")
        }
    }
}
