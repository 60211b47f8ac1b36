import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import Testing

extension PlatformTests {
    /// The researcher console (docs/console.md) as a browser without script would use it: cookies kept by hand,
    /// forms posted as browsers post them, redirects not followed so that each step is seen.
    @Suite("Console")
    struct Console {
        /// One browser: its cookies, and the CSRF token of the page it loaded last.
        final class Browser: @unchecked Sendable {
            let base: String
            let http = HTTPClient(
                eventLoopGroupProvider: .singleton,
                configuration: .init(
                    tlsConfiguration: {
                        var tls = TLSConfiguration.makeClientConfiguration(); tls.certificateVerification = .none; return tls
                    }(),
                    redirectConfiguration: .disallow))
            var cookies: [String: String] = [:]

            init(_ platform: RunningPlatform) { base = platform.baseURL }

            deinit { try? http.syncShutdown() }

            struct Page {
                var status: Int
                var headers: HTTPHeaders
                var text: String
                var location: String? { headers.first(name: "Location") }
                /// The value of the first `name="csrf"` field.
                var csrf: String? {
                    guard let field = text.range(of: #"name="csrf" value=""#) else { return nil }
                    return String(text[field.upperBound...].prefix { $0 != "\"" })
                }
                func setCookie(_ name: String) -> String? { headers[canonicalForm: "Set-Cookie"].map(String.init).first { $0.hasPrefix("\(name)=") } }
            }

            func get(_ path: String) async throws -> Page { try await send(.GET, path) }

            func post(_ path: String, _ fields: [(String, String)]) async throws -> Page {
                let body = fields.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
                return try await send(.POST, path, body: Data(body.utf8), contentType: "application/x-www-form-urlencoded")
            }

            func postMultipart(_ path: String, _ fields: [(String, String)]) async throws -> Page {
                let boundary = "----custodian-test-\(UInt32.random(in: 0...UInt32.max))"
                var body = ""
                for (name, value) in fields {
                    let file = name == "file" ? "; filename=\"figures.csv\"\r\nContent-Type: text/csv" : ""
                    body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\(file)\r\n\r\n\(value)\r\n"
                }
                body += "--\(boundary)--\r\n"
                return try await send(.POST, path, body: Data(body.utf8), contentType: "multipart/form-data; boundary=\(boundary)")
            }

            static func escape(_ text: String) -> String {
                text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._*"))) ?? ""
            }

            private func send(_ method: HTTPMethod, _ path: String, body: Data? = nil, contentType: String? = nil) async throws -> Page {
                var request = HTTPClientRequest(url: base + path)
                request.method = method
                if !cookies.isEmpty { request.headers.add(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")) }
                if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
                if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
                let response = try await http.execute(request, timeout: .seconds(30))
                let text = String(buffer: try await response.body.collect(upTo: 8 * 1024 * 1024))
                for header in response.headers[canonicalForm: "Set-Cookie"] {
                    let pair = header.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    let name = String(pair[0]), value = pair.count > 1 ? String(pair[1]) : ""
                    if value.isEmpty || header.contains("Max-Age=0") { cookies[name] = nil } else { cookies[name] = value }
                }
                return Page(status: Int(response.status.code), headers: response.headers, text: text)
            }

            /// Logs in with `token` as the login form does; the session cookie is kept.
            @discardableResult
            func logIn(_ token: String) async throws -> Page {
                let form = try await get("/console/login")
                return try await post("/console/login", [("csrf", form.csrf ?? ""), ("token", token)])
            }
        }

        @Test func aSessionCookieThatScriptsCannotReadEndsAtLogout() async throws {
            let platform = try platform
            let browser = Browser(platform)
            let start = try await browser.get("/console")
            #expect(start.status == 303 && start.location == "/console/login")

            let login = try await browser.get("/console/login")
            let policy = login.headers.first(name: "Content-Security-Policy") ?? ""
            #expect(policy.contains("default-src 'none'") && policy.contains("form-action 'self'") && !policy.contains("unsafe"), "\(policy)")
            #expect(login.text.contains(#"<label for="token">"#))

            let loggedIn = try await browser.logIn(platform.adminToken)
            #expect(loggedIn.status == 303 && loggedIn.location == "/console", "\(loggedIn.text)")
            let cookie = try #require(loggedIn.setCookie("custodian_console"))
            for attribute in ["HttpOnly", "Secure", "SameSite=Strict", "Path=/console", "Max-Age=28800"] {
                #expect(cookie.contains(attribute), "\(cookie) lacks \(attribute)")
            }
            let session = try #require(browser.cookies["custodian_console"])
            // Kept only as its hash: a copy of the database does not log anyone in.
            #expect(try platform.sql("SELECT count(*) FROM auth.console_sessions WHERE token_hash = sha256('\(session)'::bytea)") == "1")
            let dump = try platform.databaseDump()
            #expect(RunningPlatform.dumpForms(of: session).allSatisfy { !dump.contains($0) })

            let overview = try await browser.get("/console")
            #expect(overview.status == 200)
            #expect(overview.text.contains("<h1>Overview</h1>") && overview.text.contains(#"id="health""#))
            for count in ["Twomes accounts", "Twomes devices", "OpenSense devices", "Vault users", "API consumers", "LEMON submissions"] {
                #expect(overview.text.contains("</strong><a href=") && overview.text.contains(">\(count)</a>"), "the overview counts \(count)")
            }
            #expect(overview.headers.first(name: "Cache-Control") == "no-store")

            let missing = try await browser.get("/console/no/such/page")
            #expect(missing.status == 404 && missing.text.contains("There is no console page at /console/no/such/page."))
            #expect(missing.text.contains(#"id="logout""#), "in the console's look, with its navigation")

            let loggedOut = try await browser.post("/console/logout", [("csrf", overview.csrf ?? "")])
            #expect(loggedOut.status == 303 && loggedOut.location == "/console/login")
            #expect(browser.cookies["custodian_console"] == nil, "the cookie is cleared")
            // The old cookie, replayed, is worth nothing: the session ended on the server.
            browser.cookies["custodian_console"] = session
            #expect(try await browser.get("/console").location == "/console/login")
        }

        @Test func aWrongTokenOrAFormFromElsewhereIsRefused() async throws {
            let platform = try platform
            let browser = Browser(platform)
            let wrong = try await browser.logIn("not-an-admin-token")
            #expect(wrong.status == 401)
            #expect(wrong.text.contains(#"id="error""#) && wrong.text.contains("not valid"))
            #expect(browser.cookies["custodian_console"] == nil)
            // A login form posted without the page's own token (from another site) is refused, whatever the token.
            browser.cookies = [:]
            let forged = try await browser.post("/console/login", [("csrf", "guess"), ("token", platform.adminToken)])
            #expect(forged.status == 403)
            #expect(browser.cookies["custodian_console"] == nil)

            try await browser.logIn(platform.adminToken)
            let name = "forged-\(UInt32.random(in: 0...UInt32.max))"
            for fields in [[("name", name)], [("csrf", "not-the-token"), ("name", name)]] {
                let refused = try await browser.post("/console/consumers", fields)
                #expect(refused.status == 403)
                #expect(refused.text.contains("did not come from this console"))
            }
            let consumers = try await platform.request(.GET, "/admin/v1/api-consumers", admin: true)
            #expect(consumers.status == 200 && !consumers.text.contains(name), "nothing was made")
        }

        @Test func aSessionEndsWhenItExpiresOrItsAdminTokenIsRevoked() async throws {
            let platform = try platform
            let token = "console-test-\(UInt64.random(in: 0...UInt64.max))"
            _ = try platform.sql(
                "INSERT INTO auth.admin_tokens (token_hash, label, scope) VALUES (sha256('\(token)'::bytea), 'console test', 'owner')")
            let browser = Browser(platform)
            try await browser.logIn(token)
            #expect(try await browser.get("/console").status == 200)
            _ = try platform.sql("UPDATE auth.admin_tokens SET revoked_at = now() WHERE token_hash = sha256('\(token)'::bytea)")
            #expect(try await browser.get("/console").location == "/console/login")

            let other = Browser(platform)
            try await other.logIn(platform.adminToken)
            let session = try #require(other.cookies["custodian_console"])
            _ = try platform.sql(
                "UPDATE auth.console_sessions SET expires_at = now() - interval '1 second' WHERE token_hash = sha256('\(session)'::bytea)")
            #expect(try await other.get("/console/twomes/devices").location == "/console/login")
        }

        @Test func accountsDevicesAndLabelSheets() async throws {
            let platform = try platform
            let browser = Browser(platform)
            try await browser.logIn(platform.adminToken)
            let accounts = try await browser.get("/console/twomes/accounts")
            let created = try await browser.post("/console/twomes/accounts", [("csrf", accounts.csrf ?? "")])
            #expect(created.status == 201)
            #expect(created.text.contains(#"id="activation-qr" src="data:image/png;base64,"#))
            let pseudonym = try #require(
                created.text.range(of: #"id="account-pseudonym">"#).map { String(created.text[$0.upperBound...].prefix { $0.isNumber }) })
            #expect(try platform.sql("SELECT count(*) FROM devices.accounts WHERE pseudonym = \(pseudonym)") == "1")

            let name = TwomesProvisioning.deviceName()
            let devices = try await browser.get("/console/twomes/devices")
            let registered = try await browser.post(
                "/console/twomes/devices",
                [
                    ("csrf", devices.csrf ?? ""), ("name", name), ("device_type", "Generic-Test"), ("activation_token", "console-\(name)"),
                ])
            #expect(registered.status == 303)
            let listed = try await browser.get(try #require(registered.location))
            #expect(listed.text.contains("Device \(name) is registered."))
            #expect(listed.text.contains(#"<tr data-device="\#(name)">"#))
            // A name the device API refuses is shown beside the form, which keeps what was typed.
            let refused = try await browser.post(
                "/console/twomes/devices", [("csrf", devices.csrf ?? ""), ("name", name), ("device_type", "Generic-Test")])
            #expect(refused.status == 409 || refused.status == 400, "\(refused.status)")
            #expect(refused.text.contains(#"id="error""#) && refused.text.contains(#"value="\#(name)""#))

            let sheet = try await browser.post(
                "/console/twomes/labels", [("csrf", devices.csrf ?? ""), ("name", name), ("unprinted", "false"), ("transport", "ble")])
            #expect(sheet.status == 200)
            #expect(sheet.text.contains(">\(name)</div>") && sheet.text.contains("<svg "))
            #expect(try platform.sql("SELECT label_printed_on IS NOT NULL FROM devices.devices WHERE name = '\(name)'") == "t")
            let nothing = try await browser.post("/console/twomes/labels", [("csrf", devices.csrf ?? ""), ("unprinted", "false")])
            #expect(nothing.status == 400 && nothing.text.contains("Select the devices"))
        }

        @Test func anExportDownloadsAndABadFilterIsShownOnTheForm() async throws {
            let platform = try platform
            let browser = Browser(platform)
            try await browser.logIn(platform.adminToken)
            let download = try await browser.get("/console/twomes/export/download?format=csv&device=TWOMES-NOBODY&pseudonym=&from=")
            #expect(download.status == 200)
            #expect(download.headers.first(name: "Content-Disposition") == #"attachment; filename="measurements.csv""#)
            #expect(download.text.hasPrefix("pseudonym,device,device_type,property,unit,timestamp,value"))
            let bad = try await browser.get("/console/twomes/export/download?from=yesterday")
            #expect(bad.status == 400)
            #expect(bad.text.contains("<h1>Measurements</h1>") && bad.text.contains(#"id="error""#))
        }

        /// A page's query is read as the routes read theirs (a GET form's `+` is a space, `%2B` a plus), not as
        /// Hummingbird's `uri.queryParameters` would (`+` kept).
        @Test func aPagesQueryIsReadAsTheRoutesReadTheirs() async throws {
            let platform = try platform
            let browser = Browser(platform)
            try await browser.logIn(platform.adminToken)
            let page = try await browser.get("/console/twomes/devices?registered=a+b%2Bc")
            #expect(page.status == 200)
            #expect(page.text.contains("Device a b+c is registered."), "\(page.text)")
        }

        @Test func theConfigurationEditorShowsTheServersReasonBesideTheField() async throws {
            let platform = try platform
            let browser = Browser(platform)
            try await browser.logIn(platform.adminToken)
            let page = try await browser.get("/console/opensense")
            let name = "console-\(UInt32.random(in: 0...UInt32.max))"
            var fields: [(String, String)] = [
                ("csrf", page.csrf ?? ""), ("name", name), ("baseUrl", "ftp://data.example.org"), ("dataUploadOnWifiOnly", "false"),
                ("configUpdatePeriod", "21600"), ("dataArchivePeriod", "300"), ("dataUploadPeriod", "7200"), ("maxDataFileSizeKb", "1024"),
                ("dataRequests", #"{"dk.dtu.imm.sensible.battery": [{"interval": -1}]}"#),
            ]
            let refused = try await browser.post("/console/opensense/config", fields)
            #expect(refused.status == 422)
            #expect(refused.text.contains(#"<p class="field-error" id="config-baseUrl-error">baseUrl must be an http(s) URL</p>"#), "\(refused.text)")
            #expect(refused.text.contains(#"value="ftp://data.example.org""#), "what was typed stays")
            #expect(try await !platform.request(.GET, "/config").text.contains(name), "nothing was published")

            fields[2].1 = "https://data.example.org"
            fields[8].1 = "{not json"
            let notJSON = try await browser.post("/console/opensense/config", fields)
            #expect(notJSON.status == 422 && notJSON.text.contains(#"id="config-dataRequests-error">This is not valid JSON."#))
        }

        @Test func anOwnerErasesAParticipantAfterTypingThePseudonymTwiceAndSeesTheReceipt() async throws {
            let platform = try platform
            let device = try await TwomesProvisioning.provision()
            let owner = try await AdminAudit.identity("owner", label: "console eraser")
            let browser = Browser(platform)
            try await browser.logIn(owner.token)
            let form = try await browser.get("/console/erasure")
            #expect(form.status == 200 && form.text.contains(#"id="erase-account""#) && form.text.contains(#"id="nav-erasure""#))
            let csrf = try #require(form.csrf)
            let pseudonym = String(device.pseudonym)

            // Once is not enough for what cannot be undone.
            let unconfirmed = try await browser.post(
                "/console/erasure", [("csrf", csrf), ("action", "account"), ("id", pseudonym), ("confirm", String(device.pseudonym + 1))])
            #expect(unconfirmed.status == 422 && unconfirmed.text.contains("nothing was erased"), "\(unconfirmed.text)")
            #expect(try platform.sql("SELECT count(*) FROM devices.accounts WHERE pseudonym = \(pseudonym)") == "1")

            let erased = try await browser.post(
                "/console/erasure", [("csrf", csrf), ("action", "account"), ("id", pseudonym), ("confirm", pseudonym)])
            #expect(erased.status == 200 && erased.text.contains("Erased twomes_account \(pseudonym)") && erased.text.contains("by console eraser"))
            #expect(erased.text.contains("<td>devices_detached</td><td class=\"number\">1</td>"), "\(erased.text)")
            #expect(try platform.sql("SELECT count(*) FROM devices.accounts WHERE pseudonym = \(pseudonym)") == "0")
            let again = try await browser.post(
                "/console/erasure", [("csrf", csrf), ("action", "account"), ("id", pseudonym), ("confirm", pseudonym)])
            #expect(again.text.contains("Nothing was left of twomes_account \(pseudonym)"))
            // The device it had can be detached (again: it is attached to nothing now).
            let detached = try await browser.post("/console/erasure", [("csrf", csrf), ("action", "detach"), ("id", device.deviceName)])
            #expect(detached.status == 200 && detached.text.contains("was attached to no account"), "\(detached.text)")

            // A researcher sees no forms, and a form posted anyway is refused by the route's scope.
            let researcher = try await AdminAudit.identity("researcher")
            let reader = Browser(platform)
            try await reader.logIn(researcher.token)
            let readerPage = try await reader.get("/console/erasure")
            #expect(!readerPage.text.contains(#"id="erase-account""#) && !readerPage.text.contains(#"id="detach-device""#))
            let refused = try await reader.post(
                "/console/erasure", [("csrf", try #require(readerPage.csrf)), ("action", "link"), ("id", "abcdefghij")])
            #expect(refused.status == 403, "\(refused.status) \(refused.text)")
        }

        @Test func vaultConsumersLinksAndCovidFiguresThroughTheirForms() async throws {
            let platform = try platform
            let browser = Browser(platform)
            try await browser.logIn(platform.adminToken)
            let csrf = try #require(try await browser.get("/console/vault").csrf)

            let email = "console-\(UInt32.random(in: 0...UInt32.max))@example.org"
            let user = try await browser.post(
                "/console/vault/users", [("csrf", csrf), ("email", email), ("name", "Console Test"), ("password", "s3cret-console")])
            let userID = try #require(try platform.sql("SELECT id FROM auth.vault_users WHERE email = '\(email)'").nilIfEmpty)
            #expect(user.status == 200 && user.text.contains("<dt>id</dt><dd class=\"\">\(userID)</dd>"), "\(user.text)")
            #expect(!user.text.contains(email), "a person's email is not shown, not even back")
            let module = try await browser.post(
                "/console/vault/modules", [("csrf", csrf), ("user_id", userID), ("name", "Viewer <b>2</b>"), ("url", "https://viewer.example.org/")])
            #expect(module.text.contains(#"id="module-qr" src="data:image/png;base64,"#), "\(module.text)")
            #expect(module.text.contains(#"<dt>secret</dt><dd class="secret">"#))
            #expect(module.text.contains("Viewer &lt;b&gt;2&lt;/b&gt;") && !module.text.contains("<b>2</b>"), "text from a form is escaped")
            let moduleID = try #require(try platform.sql("SELECT id FROM vault.modules WHERE user_id = \(userID)").nilIfEmpty)
            let granted = try await browser.post(
                "/console/vault/permissions",
                [("csrf", csrf), ("module_id", moduleID), ("repo", "doc.notes"), ("read", "false"), ("read", "true"), ("write", "false")])
            #expect(granted.text.contains("The module may read doc.notes."), "\(granted.text)")
            let listed = try await browser.get("/console/vault")
            let row = try #require(
                listed.text.range(of: "<tr data-user=\"\(userID)\">").map { listed.text[$0.upperBound...] }
                    .flatMap { rest in rest.range(of: "</tr>").map { String(rest[..<$0.lowerBound]) } })
            #expect(row.contains("doc.notes (0)") && row.contains("doc.notes read;"), "\(row)")
            let unknownUser = try await browser.post("/console/vault/repos", [("csrf", csrf), ("user_id", "999999"), ("identifier", "doc.notes")])
            #expect(unknownUser.status == 404 && unknownUser.text.contains("No such user"))

            let consumer = try await browser.post("/console/consumers", [("csrf", csrf), ("name", "Console app")])
            #expect(consumer.status == 201)
            let secret = try #require(
                consumer.text.range(of: #"id="consumer-secret" class="secret">"#).map { String(consumer.text[$0.upperBound...].prefix { $0 != "<" }) }
            )
            #expect(secret.count >= 40)
            #expect(try await !browser.get("/console/consumers").text.contains(secret), "the secret is shown once")

            let title = "Console \(UInt32.random(in: 0...UInt32.max))"
            let link = try await browser.post(
                "/console/links", [("csrf", csrf), ("app_url", "warmtewachter://account/console"), ("title", title), ("ttl_days", "7")])
            #expect(link.status == 201 && link.text.contains(#"id="short-link-qr""#))
            let url = try #require(link.text.range(of: #"id="short-link" href=""#).map { String(link.text[$0.upperBound...].prefix { $0 != "\"" }) })
            let code = try #require(url.split(separator: "/").last.map(String.init))
            let links = try await browser.get("/console/links")
            #expect(links.text.contains("<code>\(code.prefix(4))…</code></td><td>\(title)</td>"), "the list shows the link")
            #expect(!links.text.contains(code), "but not its whole code")
            #expect(link.text.contains("(valid for 7 days)"))
            #expect(link.text.components(separatedBy: "New short link</h2>").count == 2, "one heading says so, the new link's box another thing")
            let badDays = try await browser.post("/console/links", [("csrf", csrf), ("app_url", "warmtewachter://x"), ("ttl_days", "-1")])
            #expect(badDays.status == 422)
            // The days are suggested, not pre-filled: typing 30 into the field gives 30, and an empty field the default.
            #expect(links.text.contains(#"name="ttl_days" inputmode="numeric" placeholder="14" value="""#), "\(links.text)")
            let typedInto = try await browser.post(
                "/console/links", [("csrf", csrf), ("app_url", "warmtewachter://x"), ("title", "Kept"), ("ttl_days", "1430")])
            #expect(typedInto.status == 422)
            #expect(typedInto.text.contains("Valid for: “1430” is not a whole number of days from 1 to 366."), "\(typedInto.text)")
            #expect(typedInto.text.contains(#"value="1430""#) && typedInto.text.contains(#"value="Kept""#), "what was typed stays")
            let byDefault = try await browser.post(
                "/console/links", [("csrf", csrf), ("app_url", "warmtewachter://account/default"), ("ttl_days", "")])
            #expect(byDefault.status == 201 && byDefault.text.contains("(valid for 14 days)"), "\(byDefault.text)")
            let oneDay = try await browser.post("/console/links", [("csrf", csrf), ("app_url", "warmtewachter://account/one"), ("ttl_days", "1")])
            #expect(oneDay.text.contains("(valid for 1 day)"))

            // Days long before the figures other tests read (the latest per country), so that they see none of these.
            let csv = "country,date,confirmed,deaths,recovered\r\nZA,2020-01-15,1,0,0\r\nGB,2020-01-15,2,0,\r\n"
            let imported = try await browser.postMultipart("/console/lemon/covid", [("csrf", csrf), ("source", "Console test"), ("file", csv)])
            #expect(imported.status == 200, "\(imported.text)")
            #expect(imported.headers.first(name: "Content-Length") == nil, "sent in parts: the progress first, the outcome when the rows are stored")
            let progress = try #require(imported.text.range(of: #"<p id="progress" role="status">Importing 2 rows from Console test"#))
            let single = try await browser.postMultipart(
                "/console/lemon/covid",
                [("csrf", csrf), ("source", "Console test"), ("file", "country,date,confirmed,deaths,recovered\r\nZA,2020-01-14,1,0,0\r\n")])
            #expect(single.text.contains("Importing 1 row from") && single.text.contains("Imported 1 row (1 new, 0 updated)"), "\(single.text)")
            let outcome = try #require(
                imported.text.range(of: "Imported 2 rows (2 new, 0 updated) for GB, ZA, 2020-01-15 to 2020-01-15."), "\(imported.text)")
            #expect(progress.upperBound < outcome.lowerBound)
            #expect(imported.text.hasSuffix("</html>\n"))
            let again = try await browser.postMultipart("/console/lemon/covid", [("csrf", csrf), ("source", "Console test"), ("file", csv)])
            #expect(again.text.contains("Imported 2 rows (0 new, 2 updated)"), "a second import replaces rather than duplicates")
            // A file the service refuses: the page says so in an alert, and nothing is stored.
            let badCSV = try await browser.postMultipart(
                "/console/lemon/covid",
                [("csrf", csrf), ("source", "x"), ("file", "country,date,confirmed,deaths,recovered\r\nZA,2020-01-16,1,0,0\r\nXX,1,2,3,4\r\n")])
            #expect(
                badCSV.text.contains(#"<p id="error" role="alert">Nothing was imported: "#) && !badCSV.text.contains("Imported "), "\(badCSV.text)")
            #expect(try platform.sql("SELECT count(*) FROM statistics.covid_figures WHERE day = '2020-01-16'") == "0")
            let empty = try await browser.postMultipart("/console/lemon/covid", [("csrf", csrf), ("source", "x"), ("file", " ")])
            #expect(empty.status == 400 && empty.text.contains("Choose a CSV file to import."))
        }
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
