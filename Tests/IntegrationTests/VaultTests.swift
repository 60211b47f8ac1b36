import Foundation
import NIOHTTP1
import Testing

extension PlatformTests {
    /// The OwnYourData data vault through the gateway (docs/vault.md), as the app and its modules use it.
    @Suite("OwnYourData data vault")
    struct Vault {
        struct Account {
            var userID: Int
            var email: String
            var password: String
            var token: String
        }

        struct InstalledModule {
            var id: Int
            var uid: String
            var secret: String
        }

        static func form(_ fields: [(String, String)]) -> Data {
            Data(fields.map { "\($0.0)=\(QRScanner.queryEncode($0.1))" }.joined(separator: "&").utf8)
        }

        static func login(_ email: String, _ password: String) async throws -> RunningPlatform.Reply {
            try await platform.request(
                .POST, "/oauth/token", rawBody: form([("grant_type", "password"), ("email", email), ("password", password)]),
                headers: [("Content-Type", "application/x-www-form-urlencoded")])
        }

        static func newUser(name: String = "User A") async throws -> Account {
            let email = "user-\(UUID().uuidString.prefix(8).lowercased())@ownyourdata.eu"
            let created = try await platform.request(
                .POST, "/admin/v1/vault/users", json: #"{"email":"\#(email)","name":"\#(name)","password":"user_a"}"#, admin: true)
            #expect(created.status == 201, "\(created.text)")
            let token = try #require(try await login(email, "user_a").json?["access_token"] as? String)
            return Account(userID: try #require(created.json?["id"] as? Int), email: email, password: "user_a", token: token)
        }

        static func install(_ account: Account, repo: String, read: Bool, write: Bool) async throws -> InstalledModule {
            let module = try await platform.request(
                .POST, "/admin/v1/vault/users/\(account.userID)/modules",
                json: #"{"name":"Location","description":"store your location","url":"https://location.oydapp.eu"}"#, admin: true)
            #expect(module.status == 201, "\(module.text)")
            let id = try #require(module.json?["id"] as? Int)
            let grant = try await platform.request(
                .POST, "/admin/v1/vault/modules/\(id)/permissions", json: #"{"repo":"\#(repo)","read":\#(read),"write":\#(write)}"#, admin: true)
            #expect(grant.status == 200, "\(grant.text)")
            return InstalledModule(id: id, uid: try #require(module.json?["uid"] as? String), secret: try #require(module.json?["secret"] as? String))
        }

        static func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

        @Test func theDocumentsTestEnvironmentIsLoadedByCustodianUp() async throws {
            let platform = try platform
            #expect(platform.output.contains("demo       users user_a@ownyourdata.eu"))
            let login = try await Self.login("user_a@ownyourdata.eu", "user_a")
            #expect(login.json?["username"] as? String == "User A", "\(login.status) \(login.text)")
            let token = try #require(login.json?["access_token"] as? String)
            let modules = try #require(
                try JSONSerialization.jsonObject(with: try await platform.request(.GET, "/api/modules/index", headers: Self.bearer(token)).body)
                    as? [[String: Any]])
            #expect(modules.map { $0["name"] as? String } == ["Location"])
            #expect(try await platform.request(.GET, "/api/repos/oyd.location/pub_key", headers: Self.bearer(token)).status == 200)
            #expect(try await Self.login("user_b@ownyourdata.eu", "Q/wdfbv67").json?["username"] as? String == "Very long User Name with many words")
        }

        @Test func passwordLoginAnswersAsTheDocumentSays() async throws {
            let account = try await Self.newUser(name: "Very long User Name with many words")
            let reply = try await Self.login(account.email, "user_a")
            #expect(reply.status == 200)
            let body = try #require(reply.json)
            #expect(Set(body.keys) == ["access_token", "token_type", "expires_in", "created_at", "username"])
            #expect(body["token_type"] as? String == "bearer")
            #expect(body["expires_in"] as? Int == 7200)
            #expect(body["username"] as? String == "Very long User Name with many words")
            #expect(abs(Double(body["created_at"] as? Int ?? 0) - Date().timeIntervalSince1970) < 60)
            // JSON bodies too, and the email in any case.
            let json = try await platform.request(
                .POST, "/oauth/token", json: #"{"grant_type":"password","email":"\#(account.email.uppercased())","password":"user_a"}"#)
            #expect(json.status == 200)

            let wrong = try await Self.login(account.email, "nope")
            #expect(wrong.status == 401)
            #expect(wrong.text == #"{"error":"invalid_grant","error_description":"Invalid email or password"}"# + "\n")
            let noGrant = try await platform.request(.POST, "/oauth/token", json: #"{"email":"x@y.z","password":"p"}"#)
            #expect(noGrant.status == 400)
            #expect(noGrant.json?["error"] as? String == "invalid_request")
            let badGrant = try await platform.request(.POST, "/oauth/token", json: #"{"grant_type":"implicit"}"#)
            #expect(badGrant.status == 400)
            #expect(badGrant.json?["error"] as? String == "unsupported_grant_type")
        }

        @Test func repeatedFailuresAreRefusedForAWhileThenTheOwnerGetsBackIn() async throws {
            let account = try await Self.newUser()
            for _ in 0..<5 { #expect(try await Self.login(account.email, "guess").status == 401) }
            let locked = try await Self.login(account.email, "user_a")
            #expect(locked.status == 429)
            #expect(locked.json?["error"] as? String == "slow_down")
            // Counted by a keyed digest: the address itself is nowhere in the database.
            #expect(
                try platform.sql("SELECT count(*) FROM auth.login_failures WHERE email_digest = \(try platform.loginFailureKey(account.email))")
                    == "1")
            #expect(try platform.sql("SELECT count(*) FROM auth.login_failures l WHERE strpos(l::text, '\(account.email)') > 0") == "0")
            // The lock ends by itself (here: its end moved into the past).
            _ = try platform.sql(
                "UPDATE auth.login_failures SET locked_until = now() - interval '1 second' WHERE email_digest = \(try platform.loginFailureKey(account.email))"
            )
            #expect(try await Self.login(account.email, "user_a").status == 200)
        }

        @Test func passwordChangesCountTowardsTheSameThrottle() async throws {
            let platform = try platform
            let account = try await Self.newUser()
            let auth = Self.bearer(account.token)
            for _ in 0..<5 {
                let guess = try await platform.request(
                    .POST, "/api/password", json: #"{"current_password":"guess!","new_password":"other-pw"}"#, headers: auth)
                #expect(guess.status == 403)
            }
            // A token is no way around the login's lock: the right password waits too, and so does the login.
            let locked = try await platform.request(
                .POST, "/api/password", json: #"{"current_password":"user_a","new_password":"other-pw"}"#, headers: auth)
            #expect(locked.status == 429)
            #expect(locked.json?["error"] as? String == "slow_down")
            #expect(try await Self.login(account.email, "user_a").status == 429)
            _ = try platform.sql(
                "UPDATE auth.login_failures SET locked_until = now() - interval '1 second' WHERE email_digest = \(try platform.loginFailureKey(account.email))"
            )
            let changed = try await platform.request(
                .POST, "/api/password", json: #"{"current_password":"user_a","new_password":"other-pw"}"#, headers: auth)
            #expect(changed.status == 200)
        }

        @Test func modulesAreListedWithTheirLaunchURL() async throws {
            let account = try await Self.newUser()
            let empty = try await platform.request(.GET, "/api/modules/index", headers: Self.bearer(account.token))
            #expect(empty.status == 200)
            #expect(empty.text == "[]" + "\n")
            let module = try await Self.install(account, repo: "oyd.location", read: true, write: true)
            let list = try await platform.request(.GET, "/api/modules/index?access_token=\(account.token)")
            let entry = try #require((try JSONSerialization.jsonObject(with: list.body) as? [[String: Any]])?.first)
            #expect(entry["uid"] as? String == module.uid)
            #expect(entry["secret"] as? String == module.secret)
            #expect((entry["picture"] as? String)?.hasPrefix("data:image/png;base64,") == true)
            let base = QRScanner.queryEncode(try platform.baseURL)
            #expect(entry["launch_url"] as? String == "https://location.oydapp.eu?PIA_URL=\(base)&APP_KEY=\(module.uid)&APP_SECRET=\(module.secret)")
            #expect(Set(entry.keys) == ["id", "name", "description", "url", "uid", "secret", "picture", "launch_url"])
        }

        @Test func tokensAreRequiredAndChecked() async throws {
            let missing = try await platform.request(.GET, "/api/modules/index")
            #expect(missing.status == 401)
            #expect(missing.text == #"{"error":"invalid_token","error_description":"The access token is missing"}"# + "\n")
            let forged = try await platform.request(.GET, "/api/modules/index", headers: Self.bearer("eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0."))
            #expect(forged.status == 401)
            #expect(forged.json?["error"] as? String == "invalid_token")
        }

        @Test func sealWriteReadAndDecryptRoundTrip() async throws {
            let platform = try platform
            let account = try await Self.newUser()
            _ = try await Self.install(account, repo: "oyd.location", read: true, write: true)
            let auth = Self.bearer(account.token)
            let key = try await platform.request(.GET, "/api/repos/oyd.location/pub_key", headers: auth)
            #expect(key.status == 200)
            #expect(Set(key.json?.keys.map { $0 } ?? []) == ["id", "identifier", "public_key"])
            let publicKey = try #require(key.json?["public_key"] as? String)
            #expect(publicKey.count == 64)

            let message = #"{"latitude":47.0700467,"longitude":15.4288967,"altitude":1.34,"timestamp":"2017-12-28T00:49:22Z","datum":"EPSG:4326"}"#
            let sealed = try await platform.custodian(["vault", "seal", "--public-key", publicKey, "--message", message])
            let record = sealed.output.trimmingCharacters(in: .whitespacesAndNewlines)
            let written = try await platform.request(.POST, "/api/repos/oyd.location/items", json: record, headers: auth)
            #expect(written.status == 200, "\(written.text)")
            let id = try #require(written.json?["id"] as? Int)
            // A retry of the same record (same nonce) is not stored again.
            let retried = try await platform.request(.POST, "/api/repos/oyd.location/items", json: record, headers: auth)
            #expect(retried.json?["id"] as? Int == id)

            let read = try await platform.request(.GET, "/api/repos/oyd.location/items", headers: auth)
            #expect(read.status == 200)
            #expect(read.headers.first(name: "Total-Count") == "1")
            let items = try #require(try JSONSerialization.jsonObject(with: read.body) as? [[String: Any]])
            #expect(items.first?["id"] as? Int == id)
            #expect(items.first?["version"] as? String == "0.4")

            let decrypted = try await platform.request(
                .POST, "/api/repos/oyd.location/items/decrypted", json: #"{"password":"user_a"}"#, headers: auth)
            #expect(decrypted.status == 200, "\(decrypted.text)")
            let clear = try #require((try JSONSerialization.jsonObject(with: decrypted.body) as? [[String: Any]])?.first?["data"] as? [String: Any])
            #expect(clear["latitude"] as? Double == 47.0700467)
            // The owner's command line does the same.
            let opened = try await platform.custodian([
                "vault", "open", "--server", platform.baseURL, "--insecure",
                "--email", account.email, "--password", "user_a", "--repo", "oyd.location",
            ])
            #expect(opened.status == 0, "\(opened.output)")
            #expect(opened.output.contains(#""latitude":47.0700467"#))

            let wrong = try await platform.request(.POST, "/api/repos/oyd.location/items/decrypted", json: #"{"password":"nope!!"}"#, headers: auth)
            #expect(wrong.status == 403)

            // The server keeps no repo secret it could open alone: the key is sealed to the owner.
            #expect(try platform.sql("SELECT octet_length(secret_sealed) FROM vault.repos r WHERE r.user_id = \(account.userID)") == "80")

            // After a password change the new password opens the data and the old one no longer does.
            let changed = try await platform.request(
                .POST, "/api/password", json: #"{"current_password":"user_a","new_password":"Q/wdfbv67"}"#, headers: auth)
            #expect(changed.status == 200, "\(changed.text)")
            #expect(
                try await platform.request(.POST, "/api/repos/oyd.location/items/decrypted", json: #"{"password":"Q/wdfbv67"}"#, headers: auth).status
                    == 200)
            #expect(
                try await platform.request(.POST, "/api/repos/oyd.location/items/decrypted", json: #"{"password":"user_a"}"#, headers: auth).status
                    == 403)
            #expect(try await Self.login(account.email, "Q/wdfbv67").status == 200)
        }

        @Test func batchesReportEachRecordAndWriteTheGoodOnes() async throws {
            let platform = try platform
            let account = try await Self.newUser()
            let auth = Self.bearer(account.token)
            let batch = #"[{"latitude":1,"longitude":2},{"value":"zz","nonce":"00","version":"0.4"},{"latitude":3,"longitude":4}]"#
            let reply = try await platform.request(.POST, "/api/repos/eu.ownyourdata.location/items", json: batch, headers: auth)
            #expect(reply.status == 400)
            let body = try #require(reply.json)
            #expect(body["processed"] as? Int == 3)
            let responses = try #require(body["responses"] as? [[String: Any]])
            #expect(responses.map { $0["status"] as? Int } == [200, 400, 200])
            #expect((responses[1]["error"] as? String)?.contains("hexadecimal") == true)
            let good = #"[{"a":1},{"a":2}]"#
            let ok = try await platform.request(.POST, "/api/repos/eu.ownyourdata.location/items", json: good, headers: auth)
            #expect(ok.status == 200)
            #expect(ok.json?["processed"] as? Int == 2)
            let page = try await platform.request(.GET, "/api/repos/eu.ownyourdata.location/items?page=2&size=2", headers: auth)
            #expect(page.headers.first(name: "Total-Count") == "4")
            #expect(page.headers.first(name: "Link")?.contains(#"rel="prev""#) == true)
            #expect((try JSONSerialization.jsonObject(with: page.body) as? [Any])?.count == 2)
            let last = try await platform.request(.GET, "/api/repos/eu.ownyourdata.location/items?last=1", headers: auth)
            #expect((try JSONSerialization.jsonObject(with: last.body) as? [[String: Any]])?.first?["a"] as? Int == 2)
            let huge = "[" + Array(repeating: "{}", count: 1001).joined(separator: ",") + "]"
            #expect(try await platform.request(.POST, "/api/repos/eu.ownyourdata.location/items", json: huge, headers: auth).status == 413)
            #expect(try await platform.request(.GET, "/api/repos/nothing.here/pub_key", headers: auth).status == 404)
            // Hex digits from elsewhere in Unicode are not hex.
            let fullwidth = #"{"value":"００","nonce":"59b142f13c9520cd203effa2a96dbe589defb3c1e021876e","version":"0.4"}"#
            let refused = try await platform.request(.POST, "/api/repos/eu.ownyourdata.location/items", json: fullwidth, headers: auth)
            #expect(refused.status == 400)
            #expect(
                try await platform.request(
                    .POST, "/api/repos/eu.ownyourdata.location/items/decrypted", json: #"{"password":"user_a"}"#, headers: auth
                ).status == 200)
            // A JSON record sent as curl -d labels it (a form) is still JSON here.
            let labelledForm = try await platform.request(
                .POST, "/api/repos/eu.ownyourdata.location/items", rawBody: Data(#"{"b":7}"#.utf8),
                headers: auth + [("Content-Type", "application/x-www-form-urlencoded")])
            #expect(labelledForm.status == 200)
            let newest = try await platform.request(.GET, "/api/repos/eu.ownyourdata.location/items?last=1", headers: auth)
            #expect((try JSONSerialization.jsonObject(with: newest.body) as? [[String: Any]])?.first?["b"] as? Int == 7)
        }

        @Test func aRetriedBatchOfEncryptedRecordsStoresNothingTwice() async throws {
            let platform = try platform
            let account = try await Self.newUser()
            let auth = Self.bearer(account.token)
            let created = try await platform.request(
                .POST, "/admin/v1/vault/users/\(account.userID)/repos", json: #"{"identifier":"oyd.batch"}"#, admin: true)
            #expect(created.status == 201)
            let publicKey = try #require(created.json?["public_key"] as? String)
            var records: [String] = []
            for index in 0..<2 {
                records.append(
                    try await platform.custodian(["vault", "seal", "--public-key", publicKey, "--message", #"{"n":\#(index)}"#]).output
                        .trimmingCharacters(in: .whitespacesAndNewlines))
            }
            let batch = "[" + records.joined(separator: ",") + "]"
            let first = try await platform.request(.POST, "/api/repos/oyd.batch/items", json: batch, headers: auth)
            let retry = try await platform.request(.POST, "/api/repos/oyd.batch/items", json: batch, headers: auth)
            #expect(first.status == 200)
            #expect(retry.text == first.text, "the retry answers with the first ids")
            #expect(try await platform.request(.GET, "/api/repos/oyd.batch/items", headers: auth).headers.first(name: "Total-Count") == "2")

            // One batch that holds a record twice, a retried one and a bad one: the copy gets the first one's id.
            let fresh = try await platform.custodian(["vault", "seal", "--public-key", publicKey, "--message", #"{"n":9}"#]).output
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let mixed = try await platform.request(
                .POST, "/api/repos/oyd.batch/items", json: "[\(fresh),\(fresh),\(records[0]),{\"version\":\"0.4\"}]", headers: auth)
            #expect(mixed.status == 400)
            let responses = try #require(mixed.json?["responses"] as? [[String: Any]])
            let firstIDs = try #require(first.json?["responses"] as? [[String: Any]]).compactMap { $0["id"] as? Int }
            #expect(responses.count == 4)
            #expect(responses[0]["id"] as? Int != nil && responses[0]["id"] as? Int == responses[1]["id"] as? Int)
            #expect(responses[2]["id"] as? Int == firstIDs.first)
            #expect(responses[3]["status"] as? Int == 400)
            #expect(try await platform.request(.GET, "/api/repos/oyd.batch/items", headers: auth).headers.first(name: "Total-Count") == "3")
        }

        /// Large batches: ids in the batch's order, text with escapes and backslashes kept as sent, and retries
        /// (whole, in part, twice in one batch) stored once.
        @Test func largeBatchesKeepTheirOrderTheirTextAndStoreRetriesOnce() async throws {
            let platform = try platform
            let account = try await Self.newUser()
            let auth = Self.bearer(account.token)
            #expect(
                try await platform.request(.POST, "/admin/v1/vault/users/\(account.userID)/repos", json: #"{"identifier":"oyd.large"}"#, admin: true)
                    .status == 201)
            func hex(_ count: Int) -> String { (0..<count).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined() }
            func sealed() -> String { #"{"value":"\#(hex(64))","nonce":"\#(hex(24))","version":"0.4"}"# }
            // Tabs, line breaks, backslashes and \N in the JSON text.
            let awkward = #"{"note":"tab\there\nline \\N back\\slash \"quoted\" \\t ü ✓","n":"#
            var records = (0..<120).map { _ in sealed() }
            for index in 0..<30 { records.insert(awkward + "\(index)}", at: index * 4) }

            func post(_ batch: [String]) async throws -> (RunningPlatform.Reply, [Int]) {
                let reply = try await platform.request(
                    .POST, "/api/repos/oyd.large/items", json: "[" + batch.joined(separator: ",") + "]", headers: auth)
                let ids = (reply.json?["responses"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
                return (reply, ids)
            }
            let (first, ids) = try await post(records)
            #expect(first.status == 200, "\(first.text.prefix(300))")
            #expect(first.json?["processed"] as? Int == 150)
            #expect(ids.count == 150 && ids == ids.sorted() && Set(ids).count == 150, "ids in the batch's order")

            let read = try await platform.request(.GET, "/api/repos/oyd.large/items?size=1000", headers: auth)
            #expect(read.headers.first(name: "Total-Count") == "150")
            let items = try #require(try JSONSerialization.jsonObject(with: read.body) as? [[String: Any]])
            #expect(items.compactMap { $0["id"] as? Int } == ids)
            #expect(items[0]["note"] as? String == "tab\there\nline \\N back\\slash \"quoted\" \\t ü ✓", "\(items[0])")
            #expect(items[4]["n"] as? Int == 1)
            #expect(items[1]["nonce"] as? String != nil)

            // The encrypted records again (a record without a nonce cannot be told from a new one): the first ids,
            // nothing stored.
            let encrypted = records.indices.filter { records[$0].contains(#""nonce""#) }
            #expect(encrypted.count == 120)
            let (again, idsAgain) = try await post(encrypted.map { records[$0] })
            #expect(again.status == 200 && idsAgain == encrypted.map { ids[$0] })
            // New records with some stored ones among them, and one new record twice.
            let fresh = (0..<100).map { _ in sealed() }
            let (mixed, mixedIDs) = try await post(fresh + [fresh[0]] + Array(records.suffix(20)))
            #expect(mixed.status == 200)
            #expect(mixedIDs.count == 121)
            #expect(mixedIDs[100] == mixedIDs[0], "a record twice in one batch is stored once")
            #expect(Array(mixedIDs.suffix(20)) == Array(ids.suffix(20)), "stored records get their first ids")
            #expect(try await platform.request(.GET, "/api/repos/oyd.large/items?last=1", headers: auth).headers.first(name: "Total-Count") == "1")
            #expect(try await platform.request(.GET, "/api/repos/oyd.large/items", headers: auth).headers.first(name: "Total-Count") == "250")
            // The newest and the oldest pages of the repo, as the paging reads them from either end.
            let newest = try #require(
                try JSONSerialization.jsonObject(with: try await platform.request(.GET, "/api/repos/oyd.large/items?last=3", headers: auth).body)
                    as? [[String: Any]])
            #expect(newest.compactMap { $0["id"] as? Int } == Array(mixedIDs.prefix(100).suffix(3)))
            let secondPage = try #require(
                try JSONSerialization.jsonObject(
                    with: try await platform.request(.GET, "/api/repos/oyd.large/items?page=2&size=100", headers: auth).body) as? [[String: Any]])
            #expect(secondPage.compactMap { $0["id"] as? Int } == Array(ids.suffix(50)) + Array(mixedIDs.prefix(50)))
        }

        @Test func adminRoutesValidateTheirInput() async throws {
            let platform = try platform
            let account = try await Self.newUser()
            let badModule = try await platform.request(
                .POST, "/admin/v1/vault/users/\(account.userID)/modules", json: #"{"name":"X","url":"ftp://nope"}"#, admin: true)
            #expect(badModule.status == 422)
            #expect((badModule.json?["error"] as? [String: String])?["message"] == "url: url must be an http(s) URL")
            #expect(
                try await platform.request(
                    .POST, "/admin/v1/vault/modules/999999/permissions", json: #"{"repo":"x","read":true,"write":true}"#, admin: true
                ).status == 404)
            #expect(
                try await platform.request(
                    .POST, "/admin/v1/vault/users/999999/modules", json: #"{"name":"Orphan","url":"https://x.example"}"#, admin: true
                ).status == 404)
            #expect(
                try await platform.request(.POST, "/admin/v1/vault/users/\(account.userID)/repos", json: #"{"identifier":"bad id!"}"#, admin: true)
                    .status == 400)
            #expect(
                try await platform.request(.POST, "/admin/v1/vault/users", json: #"{"email":"a@b.c","name":"x","password":"secret1"}"#).status == 401)
        }

        @Test func moduleTokensReachOnlyTheReposTheyWereGranted() async throws {
            let platform = try platform
            let account = try await Self.newUser()
            let module = try await Self.install(account, repo: "oyd.readonly", read: true, write: false)
            let token = try await platform.request(
                .POST, "/oauth/token",
                rawBody: Self.form([("grant_type", "client_credentials"), ("client_id", module.uid), ("client_secret", module.secret)]),
                headers: [("Content-Type", "application/x-www-form-urlencoded")])
            #expect(token.status == 200, "\(token.text)")
            let moduleToken = try #require(token.json?["access_token"] as? String)
            // HTTP Basic works as well.
            let basic = Data("\(module.uid):\(module.secret)".utf8).base64EncodedString()
            let viaBasic = try await platform.request(
                .POST, "/oauth/token", json: #"{"grant_type":"client_credentials"}"#, headers: [("Authorization", "Basic \(basic)")])
            #expect(viaBasic.status == 200)
            let wrongSecret = try await platform.request(
                .POST, "/oauth/token", json: #"{"grant_type":"client_credentials","client_id":"\#(module.uid)","client_secret":"nope"}"#)
            #expect(wrongSecret.status == 401)
            #expect(wrongSecret.json?["error"] as? String == "invalid_client")

            let auth = Self.bearer(moduleToken)
            #expect(try await platform.request(.GET, "/api/repos/oyd.readonly/pub_key", headers: auth).status == 200)
            let write = try await platform.request(.POST, "/api/repos/oyd.readonly/items", json: #"{"a":1}"#, headers: auth)
            #expect(write.status == 403)
            #expect(write.json?["error"] as? String == "forbidden")
            #expect(try await platform.request(.GET, "/api/repos/oyd.readonly/items", headers: auth).status == 200)
            let writer = try await Self.install(account, repo: "oyd.other", read: false, write: true)
            #expect(try await platform.request(.GET, "/api/repos/oyd.other/pub_key", headers: auth).status == 403)
            // A write-only module gets the key to encrypt with, and may write, but not read.
            let writerToken = try #require(
                try await platform.request(
                    .POST, "/oauth/token",
                    json: #"{"grant_type":"client_credentials","client_id":"\#(writer.uid)","client_secret":"\#(writer.secret)"}"#
                ).json?["access_token"] as? String)
            #expect(try await platform.request(.GET, "/api/repos/oyd.other/pub_key", headers: Self.bearer(writerToken)).status == 200)
            #expect(
                try await platform.request(.POST, "/api/repos/oyd.other/items", json: #"{"a":1}"#, headers: Self.bearer(writerToken)).status == 200)
            #expect(try await platform.request(.GET, "/api/repos/oyd.other/items", headers: Self.bearer(writerToken)).status == 403)
            // A login QR's key and secret log the app in: the module's token lists its user's modules.
            #expect(token.json?["username"] as? String == "User A")
            #expect(try await platform.request(.GET, "/api/modules/index", headers: auth).status == 200)
        }

        @Test func theUserListShowsModulesPermissionsAndRepoSizesButNoPerson() async throws {
            let platform = try platform
            let account = try await Self.newUser(name: "Listed Person")
            let module = try await Self.install(account, repo: "oyd.listed", read: true, write: false)
            let write = try await platform.request(.POST, "/api/repos/oyd.listed/items", json: #"{"a":1}"#, headers: Self.bearer(account.token))
            #expect(write.status == 200, "\(write.text)")
            let page = try await platform.request(.GET, "/admin/v1/vault/users?after=\(account.userID - 1)&limit=1", admin: true)
            #expect(page.status == 200, "\(page.text)")
            #expect(!page.text.contains(account.email) && !page.text.contains("Listed Person"), "no email or name")
            let user = try #require((page.json?["users"] as? [[String: Any]])?.first)
            #expect(user["id"] as? Int == account.userID)
            #expect((user["repos"] as? [[String: Any]])?.first { $0["identifier"] as? String == "oyd.listed" }?["items"] as? Int == 1)
            let listed = try #require((user["modules"] as? [[String: Any]])?.first { $0["id"] as? Int == module.id })
            #expect(listed["permissions"] as? NSArray == [["repo": "oyd.listed", "read": true, "write": false]] as NSArray)
            #expect(page.json?["next_after"] as? Int == account.userID, "a full page says where the next starts")
            #expect(try await platform.request(.GET, "/admin/v1/vault/users?limit=0", admin: true).status == 400)
            #expect(try await platform.request(.GET, "/admin/v1/vault/users").status == 401)
        }

        @Test func adminErrorsAndTheLoginQR() async throws {
            let platform = try platform
            let account = try await Self.newUser()
            let duplicate = try await platform.request(
                .POST, "/admin/v1/vault/users", json: #"{"email":"\#(account.email)","name":"x","password":"secret1"}"#, admin: true)
            #expect(duplicate.status == 409)
            #expect(
                try await platform.request(.POST, "/admin/v1/vault/users", json: #"{"email":"nope","name":"x","password":"secret1"}"#, admin: true)
                    .status == 422)
            let module = try await Self.install(account, repo: "oyd.location", read: true, write: true)
            let qr = try await platform.request(.GET, "/admin/v1/vault/modules/\(module.id)/qr", admin: true)
            #expect(qr.status == 200)
            let payload = try #require(try JSONSerialization.jsonObject(with: Data(try QRScanner.decode(qr.body))) as? [String: String])
            #expect(payload == ["PIA_URL": platform.baseURL, "APP_KEY": module.uid, "APP_SECRET": module.secret])
        }
    }
}
