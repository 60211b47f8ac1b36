import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation
import NIOHTTP1
import Testing

extension PlatformTests {
    /// The LEMON tracing app's statistics (docs/lemon.md). The app routes need the JWT of a device handshake that
    /// `auth` does not issue yet, so the app's methods are called over RPC with the principal the gateway
    /// would set; the admin routes go through the gateway. Serialized: the tests count and sum shared tables.
    @Suite("LEMON statistics", .serialized)
    struct Statistics {
        static func app(_ device: String) -> Principal { Principal(kind: "app", id: device, session: "session-\(device)", scopes: []) }
        static func newDevice() -> String { "device-\(UUID().uuidString.lowercased())" }

        static func call(_ method: String, query: [String: [String]] = [:], body: JSONValue = .null, device: String? = nil) async throws -> JSONValue
        {
            try await platform.call(
                "statistics", method, input: HTTPInput(body: body, query: query),
                principal: app(device ?? newDevice()), as: JSONValue.self)
        }

        static func failure(_ method: String, query: [String: [String]] = [:], body: JSONValue = .null, device: String? = nil) async -> RPCError? {
            do {
                _ = try await call(method, query: query, body: body, device: device)
                return nil
            } catch {
                return error as? RPCError
            }
        }

        static func json(_ text: String) throws -> JSONValue { try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) }

        static func submissions(of device: String) throws -> Int {
            Int(try platform.sql("SELECT count(*) FROM statistics.submissions WHERE device_sha256 = sha256(convert_to('\(device)', 'UTF8'))")) ?? -1
        }

        // MARK: Symptoms, countries, languages

        @Test func symptomsComeInTheAskedLanguageWithEnglishAsDefaultAndFallback() async throws {
            guard case .array(let english) = try await Self.call("statistics.symptoms.list") else { Issue.record("not a list"); return }
            #expect(english.count >= 12)
            #expect(english.first == ["key": "question_positive_symptom-1", "value": "Sore throat"])
            #expect(english.contains(["key": "question_positive_symptom-12", "value": "Loss of smell"]))
            guard case .array(let german) = try await Self.call("statistics.symptoms.list", query: ["language": ["DE"]]) else {
                Issue.record("not a list")
                return
            }
            #expect(german.first == ["key": "question_positive_symptom-1", "value": "Halsschmerzen"])
            #expect(german.contains(["key": "question_positive_symptom-12", "value": "Geruchsverlust"]))
            // French is supported but has no translations yet: English stands in.
            #expect(try await Self.call("statistics.symptoms.list", query: ["language": ["fr"]]) == .array(english))

            for bad in ["xx", "english", "e"] {
                let error = await Self.failure("statistics.symptoms.list", query: ["language": [bad]])
                #expect(error == RPCError.badRequest("Invalid Alpha2 '\(bad)': not a supported language", reason: "invalid_alpha2"))
            }
            #expect(await Self.failure("statistics.symptoms.list", query: ["language": ["en", "de"]])?.reason == "repeated_parameter")
        }

        @Test func appMethodsNeedAnAppPrincipalAndTheRoutesAJWT() async throws {
            let platform = try platform
            await #expect(throws: RPCError.unauthenticated("Missing or Invalid JWT")) {
                _ = try await platform.call("statistics", "statistics.symptoms.list", input: HTTPInput(), principal: nil, as: JSONValue.self)
            }
            for path in ["/api/v1/symptoms", "/api/v1/statistics/covid/google?countries=ZA", "/api/v1/countries", "/api/v1/languages"] {
                let reply = try await platform.request(.GET, path)
                #expect(reply.status == 401)
                // The LEMON API's wording for every token problem (docs/lemon.md, "End-to-end payloads").
                #expect(reply.text == #"{"data":null,"meta":{"code":401,"message":"Missing or Invalid JWT","success":false}}"# + "\n")
            }
            #expect(try await platform.request(.POST, "/api/v1/submission/covid", json: "{}").status == 401)
        }

        @Test func countriesAndLanguagesListAllOrOne() async throws {
            guard case .array(let countries) = try await Self.call("statistics.countries.list") else { Issue.record("not a list"); return }
            #expect(countries.contains(["Alpha2": "ZA", "Name": "South Africa"]))
            #expect(countries.contains(["Alpha2": "GB", "Name": "United Kingdom"]))
            #expect(try await Self.call("statistics.countries.list", query: ["country": ["za"]]) == ["Alpha2": "ZA", "Name": "South Africa"])
            #expect(
                await Self.failure("statistics.countries.list", query: ["country": ["ZZ"]])
                    == RPCError.badRequest("Invalid alpha2 code 'ZZ': not supported", reason: "invalid_alpha2"))
            #expect(
                await Self.failure("statistics.countries.list", query: ["country": ["ZAF"]])
                    == RPCError.badRequest("Invalid alpha2 code 'ZAF'", reason: "invalid_alpha2"))

            guard case .array(let languages) = try await Self.call("statistics.languages.list") else { Issue.record("not a list"); return }
            #expect(languages.contains(["Alpha2": "en", "Name": "English"]))
            #expect(languages.contains(["Alpha2": "de", "Name": "German"]))
            #expect(try await Self.call("statistics.languages.list", query: ["language": ["DE"]]) == ["Alpha2": "de", "Name": "German"])
            #expect(
                await Self.failure("statistics.languages.list", query: ["language": ["xx"]])
                    == RPCError.badRequest("Invalid alpha2 code 'xx': not supported", reason: "invalid_alpha2"))
        }

        @Test func adminsEditCountriesLanguagesAndSymptoms() async throws {
            let platform = try platform
            // A private-use code, so that no real country changes.
            let country = try await platform.request(.PUT, "/admin/v1/statistics/countries/xa", json: #"{"name":"Testland"}"#, admin: true)
            #expect(country.status == 200, "\(country.text)")
            #expect(country.text == #"{"active":true,"alpha2":"XA","name":"Testland"}"# + "\n")
            #expect(try await Self.call("statistics.countries.list", query: ["country": ["XA"]]) == ["Alpha2": "XA", "Name": "Testland"])
            let listed = try await platform.request(.GET, "/admin/v1/statistics/countries", admin: true)
            #expect(listed.text.contains(#"{"active":true,"alpha2":"ZA","name":"South Africa"}"#))

            #expect(try await platform.request(.PUT, "/admin/v1/statistics/languages/fr", json: #"{"name":"French"}"#, admin: true).status == 200)
            #expect(
                try await platform.request(.PUT, "/admin/v1/statistics/languages/xq", json: #"{"name":"Testish","active":false}"#, admin: true).status
                    == 200)
            #expect(await Self.failure("statistics.languages.list", query: ["language": ["xq"]])?.reason == "invalid_alpha2")
            let languages = try await platform.request(.GET, "/admin/v1/statistics/languages", admin: true)
            #expect(languages.text.contains(#"{"active":false,"alpha2":"xq","name":"Testish"}"#))

            let key = "test_symptom-\(UUID().uuidString.prefix(8).lowercased())"
            let noEnglish = try await platform.request(
                .PUT, "/admin/v1/statistics/symptoms/\(key)", json: #"{"translations":{"fr":"Fatigue"}}"#, admin: true)
            #expect(noEnglish.status == 400)
            #expect(
                noEnglish.text == #"{"error":{"message":"a new symptom needs its English text (translations.en)","reason":"missing_translation"}}"#
                    + "\n")
            let created = try await platform.request(
                .PUT, "/admin/v1/statistics/symptoms/\(key)",
                json: #"{"translations":{"en":"Tiredness","fr":"Fatigue"},"position":99}"#, admin: true)
            #expect(created.status == 200, "\(created.text)")
            #expect(created.text == #"{"active":true,"key":"\#(key)","position":99,"translations":{"en":"Tiredness","fr":"Fatigue"}}"# + "\n")
            guard case .array(let french) = try await Self.call("statistics.symptoms.list", query: ["language": ["fr"]]) else {
                Issue.record("not a list")
                return
            }
            #expect(french.contains(["key": .string(key), "value": "Fatigue"]))
            #expect(french.first == ["key": "question_positive_symptom-1", "value": "Sore throat"])
            let submission: JSONValue = ["Status": "Positive", "Symptoms": [.string(key)]]
            #expect(try await Self.call("statistics.submission.create", body: submission) == .null)

            let unknownLanguage = try await platform.request(
                .PUT, "/admin/v1/statistics/symptoms/\(key)", json: #"{"translations":{"yy":"?"}}"#, admin: true)
            #expect(unknownLanguage.status == 400)
            let deactivated = try await platform.request(.DELETE, "/admin/v1/statistics/symptoms/\(key)", admin: true)
            #expect(deactivated.text.contains(#""active":false"#))
            guard case .array(let after) = try await Self.call("statistics.symptoms.list") else { Issue.record("not a list"); return }
            #expect(!after.contains { $0["key"] == .string(key) })
            #expect(await Self.failure("statistics.submission.create", body: submission)?.reason == "invalid_symptom")
            #expect(try await platform.request(.DELETE, "/admin/v1/statistics/symptoms/nope", admin: true).status == 404)
            #expect(
                try await platform.request(.PUT, "/admin/v1/statistics/symptoms/has%20space", json: #"{"position":1}"#, admin: true).status == 400)
            #expect(try await platform.request(.PUT, "/admin/v1/statistics/countries/xyz", json: #"{"name":"X"}"#, admin: true).status == 400)
            #expect(try await platform.request(.PUT, "/admin/v1/statistics/countries/xb", json: #"{}"#, admin: true).status == 422)
            #expect(try await platform.request(.GET, "/admin/v1/statistics/symptoms").status == 401)
            let symptoms = try await platform.request(.GET, "/admin/v1/statistics/symptoms", admin: true)
            #expect(
                symptoms.text.contains(
                    #"{"active":true,"key":"question_positive_symptom-1","position":1,"translations":{"de":"Halsschmerzen","en":"Sore throat"}}"#))
        }

        // MARK: Submissions

        @Test func theDocumentsSubmissionIsStoredOnceHoweverOftenItIsRetried() async throws {
            let device = Self.newDevice()
            let body = try Self.json(
                """
                {"Status":"Recovered","PositiveTestDate":"2020-03-29 13:00:09.1359267","NegativeTestDate":"2020-03-30 13:00:09.1359267",
                 "Country":"GB","Language":"EN","Age":25,"IsSymptomatic":false}
                """)
            #expect(try await Self.call("statistics.submission.create", body: body, device: device) == .null)
            #expect(try await Self.call("statistics.submission.create", body: body, device: device) == .null)
            // The same submission in other spellings is the same submission.
            let respelled = try Self.json(
                """
                {"isSymptomatic":false,"age":25,"language":"en","country":"gb","negativeTestDate":"2020-03-30T13:00:09.135927Z",
                 "positiveTestDate":"2020-03-29T15:00:09.135927+02:00","status":"recovered"}
                """)
            #expect(try await Self.call("statistics.submission.create", body: respelled, device: device) == .null)
            #expect(try Self.submissions(of: device) == 1)
            let stored = try platform.sql(
                """
                SELECT status, country, language, age, is_symptomatic, positive_test_date AT TIME ZONE 'UTC', negative_test_date AT TIME ZONE 'UTC'
                FROM statistics.submissions WHERE device_sha256 = sha256(convert_to('\(device)', 'UTF8'))
                """)
            #expect(stored == "Recovered|GB|en|25|f|2020-03-29 13:00:09.135927|2020-03-30 13:00:09.135927")
            // Another device's identical survey counts, and so does this device's next, different one.
            #expect(try await Self.call("statistics.submission.create", body: body) == .null)
            #expect(try await Self.call("statistics.submission.create", body: ["Status": "Negative", "Country": "GB"], device: device) == .null)
            #expect(try Self.submissions(of: device) == 2)
            #expect(try platform.rows(of: "statistics.submissions", holding: device, in: "device_sha256") == 0)
        }

        @Test func everyStatusWithItsFieldsIsAccepted() async throws {
            let device = Self.newDevice()
            let bodies = [
                #"{"Status":"Positive","PositiveTestDate":"2020-04-01","IsSymptomatic":true,"Symptoms":["question_positive_symptom-1","question_positive_symptom-12"],"Country":"ZA","Language":"de","Age":40}"#,
                #"{"Status":"Negative","NegativeTestDate":"2020-04-02 08:00:00","Country":"ZA"}"#,
                #"{"Status":"I Don't Know","IsSymptomatic":false,"Symptoms":[]}"#,
                #"{"Status":"Recovered","PositiveTestDate":"2020-04-01","NegativeTestDate":"2020-04-20","Symptoms":["question_positive_symptom-2"]}"#,
                #"{"Age":30}"#,
            ]
            for body in bodies {
                #expect(try await Self.call("statistics.submission.create", body: try Self.json(body), device: device) == .null, "\(body)")
            }
            #expect(try Self.submissions(of: device) == bodies.count)
            #expect(
                try platform.sql(
                    "SELECT array_to_string(symptoms, ';') FROM statistics.submissions WHERE device_sha256 = sha256(convert_to('\(device)', 'UTF8')) AND status = 'Positive'"
                )
                    == "question_positive_symptom-1;question_positive_symptom-12")
        }

        @Test func everyInvalidSubmissionGetsItsOwn400AndNothingIsStored() async throws {
            let device = Self.newDevice()
            let tooMany = (1...21).map { "\"question_positive_symptom-\($0)\"" }.joined(separator: ",")
            let cases: [(String, String)] = [
                (
                    #"{"Status":"Negative","Symptoms":["question_positive_symptom-1"]}"#,
                    "Invalid message structure for specified status: Negative does not take Symptoms"
                ),
                (
                    #"{"Status":"Positive","NegativeTestDate":"2020-04-01"}"#,
                    "Invalid message structure for specified status: Positive does not take NegativeTestDate"
                ),
                (#"{"Status":"Positive","Temperature":39}"#, "Invalid message structure for specified status: unknown field 'Temperature'"),
                ("null", "Missing request payload"),
                ("{}", "Missing request payload"),
                (#"{"Status":"Sick"}"#, "Invalid status 'Sick': use Positive, Negative, I Don't Know or Recovered"),
                (#"{"Country":"ZZ"}"#, "Unsupported country 'ZZ'"),
                (#"{"Language":"xx"}"#, "Invalid Alpha2 'xx': not a supported language"),
                (#"{"Age":-1}"#, "Invalid age (younger than 0 or older than 200): -1"),
                (#"{"Age":201}"#, "Invalid age (younger than 0 or older than 200): 201"),
                (
                    #"{"Status":"Positive","PositiveTestDate":"2019-11-30 12:00:00"}"#,
                    "Invalid test dates (in the future or before the first recorded case of COVID-19): PositiveTestDate 2019-11-30 12:00:00"
                ),
                (
                    #"{"Status":"Negative","NegativeTestDate":"2099-01-01 00:00:00"}"#,
                    "Invalid test dates (in the future or before the first recorded case of COVID-19): NegativeTestDate 2099-01-01 00:00:00"
                ),
                (
                    #"{"Status":"Negative","NegativeTestDate":"soon"}"#,
                    "Invalid test dates: NegativeTestDate 'soon' is not a date (2020-03-29 13:00:09.1359267 or ISO 8601)"
                ),
                (#"{"Status":"Positive","Symptoms":[\#(tooMany)]}"#, "Invalid symptom count (more than 20): 21"),
                (
                    #"{"Status":"Positive","Symptoms":["\#(String(repeating: "a", count: 51))"]}"#,
                    "Invalid symptom (longer than 50 characters): '\(String(repeating: "a", count: 51))'"
                ),
                (
                    #"{"Status":"Positive","Symptoms":["question_positive_symptom-99"]}"#,
                    "Invalid symptom (does not match a registered symptom): 'question_positive_symptom-99'"
                ),
                (
                    #"{"Status":"Positive","Symptoms":["question_positive_symptom-3","question_positive_symptom-3"]}"#,
                    "Duplicate symptoms: 'question_positive_symptom-3' is listed twice"
                ),
            ]
            for (body, message) in cases {
                let error = await Self.failure("statistics.submission.create", body: try Self.json(body), device: device)
                #expect(error?.code == .badRequest, "\(body)")
                #expect(error?.message == message, "\(body)")
            }
            #expect(try Self.submissions(of: device) == 0)
        }

        @Test func forgettingADeviceDeletesItsSubmissionsAndOnlyThose() async throws {
            let platform = try platform
            let device = Self.newDevice()
            let other = Self.newDevice()
            #expect(try await Self.call("statistics.submission.create", body: ["Status": "Positive"], device: device) == .null)
            #expect(try await Self.call("statistics.submission.create", body: ["Status": "Negative"], device: device) == .null)
            #expect(try await Self.call("statistics.submission.create", body: ["Status": "Negative"], device: other) == .null)
            let forget = { () async throws -> JSONValue in
                try await platform.call(
                    "statistics", "statistics.device.forget", input: ["deviceId": .string(device)] as JSONValue,
                    principal: Self.app(device), as: JSONValue.self)
            }
            #expect(try await forget() == ["deleted": 2])
            #expect(try await forget() == ["deleted": 0])
            #expect(try Self.submissions(of: device) == 0)
            #expect(try Self.submissions(of: other) == 1)
            await #expect(throws: RPCError.self) {
                _ = try await platform.call(
                    "statistics", "statistics.device.forget", input: ["deviceId": ""] as JSONValue, principal: nil, as: JSONValue.self)
            }
        }

        // MARK: COVID-19 figures

        @Test func statisticsPerCountrySeveralAndGlobal() async throws {
            let south = try await Self.call("statistics.covid.get", query: ["countries": ["ZA"]])
            // The sample custodian up imports; the LEMON API example's figures for 2020-05-17 (docs/lemon.md).
            #expect(south["CountryName"] == "South Africa")
            #expect(south["ContractedCount"] == 16433)
            #expect(south["DeathCount"] == 286)
            #expect(south["RecoveredCount"] == 7298)
            #expect(south["Source"] == "Custodian demo sample")
            #expect(south["SourceUrl"] == "https://github.com/CSSEGISandData/COVID-19")
            #expect(south["SourceCreatedAt"] == "2020-05-17T00:00:00")
            #expect(south["CreatedAt"]?.stringValue?.count == 26)
            guard case .object(let fields) = south else { Issue.record("not an object"); return }
            #expect(
                Set(fields.keys) == [
                    "CountryName", "ContractedCount", "DeathCount", "RecoveredCount", "Source", "SourceCreatedAt", "SourceUrl", "CreatedAt",
                ])

            guard case .array(let both) = try await Self.call("statistics.covid.get", query: ["countries": ["gb", "ZA", "GB"]]) else {
                Issue.record("several countries give a list")
                return
            }
            #expect(both.map { $0["CountryName"] } == ["United Kingdom", "South Africa"])
            #expect(both.first?["RecoveredCount"] == .null)

            let global = try await Self.call("statistics.covid.get")
            #expect(global["CountryName"] == "Global")
            let expected = try platform.sql(
                "SELECT sum(confirmed) || '|' || sum(deaths) FROM (SELECT DISTINCT ON (country) confirmed, deaths FROM statistics.covid_figures ORDER BY country, day DESC) latest"
            )
            guard case .int(let contracted) = global["ContractedCount"], case .int(let deaths) = global["DeathCount"] else {
                Issue.record("global counts missing: \(global)")
                return
            }
            #expect("\(contracted)|\(deaths)" == expected)

            #expect(
                await Self.failure("statistics.covid.get", query: ["countries": ["ZAF"]])
                    == RPCError.badRequest("Invalid alpha2 code 'ZAF'", reason: "invalid_alpha2"))
            #expect(
                await Self.failure("statistics.covid.get", query: ["countries": ["ZA", "QQ"]])
                    == RPCError.badRequest("Invalid alpha2 code 'QQ': not a supported country", reason: "invalid_alpha2"))
            // Supported, but nothing imported for it.
            #expect(await Self.failure("statistics.covid.get", query: ["countries": ["IS"]])?.code == .notFound)
        }

        @Test func importsAreCheckedWholeAndReimportsUpdate() async throws {
            let platform = try platform
            let csv =
                "country,date,confirmed,deaths,recovered\nCH,2020-05-16,30500,1600,27500\nCH,2020-05-17,30572,1602,27600\nNL,2020-05-17,43995,5680,\n"
            let path = "/admin/v1/statistics/covid/imports?source=JHU%20CSSE&source_url=https%3A%2F%2Fgithub.com%2FCSSEGISandData%2FCOVID-19"
            let first = try await platform.request(.POST, path, rawBody: Data(csv.utf8), headers: [("Content-Type", "text/csv")], admin: true)
            #expect(first.status == 201, "\(first.text)")
            let summary = try #require(first.json)
            #expect(summary["countries"] as? [String] == ["CH", "NL"])
            #expect(summary["rows"] as? Int == 3)
            #expect(summary["inserted"] as? Int == 3)
            #expect(summary["updated"] as? Int == 0)
            #expect(summary["first_day"] as? String == "2020-05-16")
            #expect(summary["last_day"] as? String == "2020-05-17")
            #expect(summary["source"] as? String == "JHU CSSE")
            #expect(summary["source_url"] as? String == "https://github.com/CSSEGISandData/COVID-19")
            let again = try await platform.request(.POST, path, rawBody: Data(csv.replacingOccurrences(of: "30572", with: "30600").utf8), admin: true)
            #expect(again.json?["inserted"] as? Int == 0)
            #expect(again.json?["updated"] as? Int == 3)
            #expect(try platform.sql("SELECT count(*), max(confirmed) FROM statistics.covid_figures WHERE country = 'CH'") == "2|30600")
            let swiss = try await Self.call("statistics.covid.get", query: ["countries": ["CH"]])
            #expect(swiss["ContractedCount"] == 30600)
            #expect(swiss["Source"] == "JHU CSSE")

            // One bad line: nothing of the file is written.
            let bad = "country,date,confirmed,deaths,recovered\nBE,2020-05-17,55280,9052,14630\nBE,2020-05-18,x,9080,14657\nQQ,2020-05-17,1,1,1\n"
            let refused = try await platform.request(.POST, path, rawBody: Data(bad.utf8), admin: true)
            #expect(refused.status == 400)
            let error = try #require(refused.json?["error"] as? [String: Any])
            #expect(error["reason"] as? String == "invalid_csv")
            #expect((error["message"] as? String)?.hasPrefix("2 lines of the CSV are invalid: line 3: confirmed 'x' is not a whole number") == true)
            let details = try #require(error["details"] as? [[String: Any]])
            #expect(details.map { $0["line"] as? Int } == [3, 4])
            #expect(details.last?["message"] as? String == "country QQ is not supported (add it with PUT /admin/v1/statistics/countries/QQ)")
            // (Other tests import other days of BE into the same platform.)
            #expect(
                try platform.sql(
                    "SELECT count(*) FROM statistics.covid_figures WHERE country = 'BE' AND day BETWEEN '2020-05-17' AND '2020-05-18'") == "0")
            #expect(try await platform.request(.POST, path, rawBody: Data("country,day\n".utf8), admin: true).status == 400)
            #expect(try await platform.request(.POST, path, admin: true).status == 400)
            #expect(
                try await platform.request(.POST, "/admin/v1/statistics/covid/imports?source_url=ftp://x", rawBody: Data(csv.utf8), admin: true)
                    .status == 400)
            #expect(try await platform.request(.POST, path, rawBody: Data(csv.utf8)).status == 401)
        }

        /// Rows of `GET /admin/v1/statistics/covid` as `country date confirmed`, and the cursor.
        static func figures(_ query: String) async throws -> (rows: [String], next: String?) {
            let reply = try await platform.request(.GET, "/admin/v1/statistics/covid?\(query)", admin: true)
            #expect(reply.status == 200, "\(query): \(reply.text)")
            let rows = (reply.json?["figures"] as? [[String: Any]] ?? []).map {
                "\($0["country"] as? String ?? "?") \($0["date"] as? String ?? "?") \($0["confirmed"] as? Int ?? -1)"
            }
            return (rows, reply.json?["next_after"] as? String)
        }

        @Test func researchersPageThroughTheImportedFiguresByCountryAndDay() async throws {
            let platform = try platform
            for (code, name) in [("XC", "Pageland"), ("XD", "Filterland")] {
                #expect(
                    try await platform.request(.PUT, "/admin/v1/statistics/countries/\(code)", json: #"{"name":"\#(name)"}"#, admin: true).status
                        == 200)
            }
            let csv = """
                country,date,confirmed,deaths,recovered
                XC,2020-04-29,10,1,
                XC,2020-04-30,20,2,
                XC,2020-05-01,30,3,7
                XC,2020-05-02,40,4,9
                XD,2020-04-30,200,20,
                XD,2020-05-01,300,30,
                """
            let imported = try await platform.request(
                .POST, "/admin/v1/statistics/covid/imports?source=Paging%20test", rawBody: Data(csv.utf8), admin: true)
            #expect(imported.status == 201, "\(imported.text)")

            // One country, newest day first, in the import's words.
            #expect(try await Self.figures("country=xc").rows == ["XC 2020-05-02 40", "XC 2020-05-01 30", "XC 2020-04-30 20", "XC 2020-04-29 10"])
            let reply = try await platform.request(.GET, "/admin/v1/statistics/covid?country=XC&limit=1", admin: true)
            let first = try #require((reply.json?["figures"] as? [[String: Any]])?.first)
            #expect(Set(first.keys) == ["country", "date", "confirmed", "deaths", "recovered", "source", "source_url", "imported_at"])
            #expect(first["recovered"] as? Int == 9 && first["source"] as? String == "Paging test" && first["source_url"] is NSNull)
            #expect((first["imported_at"] as? String)?.hasSuffix("Z") == true)

            // Every country within the days, across the month boundary: by day, then alphabetically.
            let range = "from=2020-04-30&to=2020-05-01"
            #expect(try await Self.figures(range).rows == ["XC 2020-05-01 30", "XD 2020-05-01 300", "XC 2020-04-30 20", "XD 2020-04-30 200"])
            #expect(try await Self.figures("country=XD&from=2020-05-01").rows == ["XD 2020-05-01 300"])
            #expect(try await Self.figures("country=XC&to=2020-04-29").rows == ["XC 2020-04-29 10"])
            #expect(try await Self.figures("country=AT&to=2020-04-29").rows.isEmpty)

            // Pages of three: the cursor leads on between two countries of one day.
            let page1 = try await Self.figures("from=2020-04-29&to=2020-05-02&limit=3")
            #expect(page1.rows == ["XC 2020-05-02 40", "XC 2020-05-01 30", "XD 2020-05-01 300"])
            #expect(page1.next == "2020-05-01.XD")
            let page2 = try await Self.figures("from=2020-04-29&to=2020-05-02&limit=3&after=\(try #require(page1.next))")
            #expect(page2.rows == ["XC 2020-04-30 20", "XD 2020-04-30 200", "XC 2020-04-29 10"])
            let page3 = try await Self.figures("from=2020-04-29&to=2020-05-02&limit=3&after=\(try #require(page2.next))")
            #expect(page3.rows.isEmpty && page3.next == nil)
            let middle = try await Self.figures("from=2020-04-29&to=2020-05-02&after=2020-05-01.XC")
            #expect(middle.rows.first == "XD 2020-05-01 300", "the same day, the next country")

            let bad: [(String, String)] = [
                ("country=XYZ", "country 'XYZ' is not an alpha2 code (two letters)"),
                ("country=QQ", "country QQ is not supported (add it with PUT /admin/v1/statistics/countries/QQ)"),
                ("country=ZA&country=GB", "Give the query parameter 'country' once, not 2 times"),
                ("from=2020-02-30", "from must be a day (YYYY-MM-DD), not '2020-02-30'"),
                ("to=yesterday", "to must be a day (YYYY-MM-DD), not 'yesterday'"),
                ("from=2020-05-17T00:00:00Z", "from must be a day (YYYY-MM-DD), not '2020-05-17T00:00:00Z'"),
                ("from=2020-05-02&to=2020-05-01", "from (2020-05-02) must not be after to (2020-05-01)"),
                ("limit=0", "limit must be a whole number from 1 to 1000"),
                ("after=2020-05-01", "after must be a next_after value of an earlier page"),
                ("after=2020-13-01.XC", "after must be a next_after value of an earlier page"),
                ("after=2020-05-01.xc", "after must be a next_after value of an earlier page"),
            ]
            for (query, message) in bad {
                let refused = try await platform.request(.GET, "/admin/v1/statistics/covid?\(query)", admin: true)
                #expect(refused.status == 400, "\(query): \(refused.text)")
                #expect((refused.json?["error"] as? [String: Any])?["message"] as? String == message, "\(refused.text)")
            }
            #expect(try await platform.request(.GET, "/admin/v1/statistics/covid").status == 401)
        }

        @Test func custodianStatsImportUsesTheAdminAPI() async throws {
            let platform = try platform
            let file = NSTemporaryDirectory() + "covid-\(UUID().uuidString).csv"
            defer { try? FileManager.default.removeItem(atPath: file) }
            try "country,date,confirmed,deaths,recovered\nIE,2020-05-17,24112,1543,19470\n".write(toFile: file, atomically: true, encoding: .utf8)
            let imported = try await platform.custodian([
                "stats", "import", file, "--source", "HSE Ireland", "--server", platform.baseURL,
                "--token", platform.adminToken, "--insecure",
            ])
            #expect(imported.status == 0, "\(imported.output)")
            #expect(imported.output.contains(#""inserted":1"#))
            #expect(try platform.sql("SELECT confirmed, source FROM statistics.covid_figures WHERE country = 'IE'") == "24112|HSE Ireland")

            try "country,date,confirmed,deaths,recovered\nIE,2020-05-18,-5,1,1\n".write(toFile: file, atomically: true, encoding: .utf8)
            let refused = try await platform.custodian([
                "stats", "import", file, "--server", platform.baseURL, "--token", platform.adminToken, "--insecure",
            ])
            #expect(refused.status != 0)
            #expect(refused.output.contains("line 2: confirmed '-5' is not a whole number"), "\(refused.output)")
        }

        // MARK: Researchers

        @Test func researchersCountAndExportSubmissionsWithoutDeviceIdentifiers() async throws {
            let platform = try platform
            #expect(try await platform.request(.PUT, "/admin/v1/statistics/countries/XB", json: #"{"name":"Exportland"}"#, admin: true).status == 200)
            let device = Self.newDevice()
            for body: JSONValue in [
                ["Status": "Positive", "Country": "XB", "Age": 41], ["Status": "Positive", "Country": "XB", "Age": 42],
                ["Status": "Negative", "Country": "XB", "NegativeTestDate": "2020-06-01 10:00:00"],
            ] {
                #expect(try await Self.call("statistics.submission.create", body: body, device: device) == .null)
            }
            let week = try platform.sql(#"SELECT to_char(now() AT TIME ZONE 'UTC', 'IYYY-"W"IW')"#)
            let counts = try await platform.request(.GET, "/admin/v1/statistics/submissions/counts", admin: true)
            #expect(counts.status == 200)
            #expect(counts.text.contains(#"{"count":2,"country":"XB","status":"Positive","week":"\#(week)"}"#), "\(counts.text)")
            #expect(counts.text.contains(#"{"count":1,"country":"XB","status":"Negative","week":"\#(week)"}"#))
            let future = try await platform.request(.GET, "/admin/v1/statistics/submissions/counts?from=2099-01-01", admin: true)
            #expect(future.text == #"{"counts":[]}"# + "\n")

            // Enough rows for three pages.
            _ = try platform.sql(
                """
                INSERT INTO statistics.submissions (device_sha256, body_sha256, status, country)
                SELECT sha256('bulk'::bytea), sha256(i::text::bytea), 'I Don''t Know', 'XB' FROM generate_series(1, 2100) i
                """)
            // The export leaves out what the load generator, which may run meanwhile, submitted (synthetic data).
            let total = try #require(
                Int(
                    try platform.sql(
                        "SELECT count(*) FROM statistics.submissions WHERE device_sha256 NOT IN (SELECT device_sha256 FROM statistics.synthetic_devices)"
                    )))
            let csv = try await platform.request(.GET, "/admin/v1/statistics/submissions?format=csv", admin: true)
            #expect(csv.status == 200)
            #expect(csv.headers.first(name: "Content-Type") == "text/csv; charset=utf-8")
            let lines = csv.text.split(separator: "\r\n").map(String.init)
            #expect(lines.count == total + 1)
            #expect(lines.first == "submitted_on,status,country,language,age,is_symptomatic,symptoms,positive_test_date,negative_test_date")
            let today = try platform.sql("SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD')")
            #expect(lines.contains("\(today),Negative,XB,,,,,,2020-06-01T10:00:00.000000"))
            #expect(!csv.text.contains(device))

            let ndjson = try await platform.request(.GET, "/admin/v1/statistics/submissions?format=ndjson&from=\(today)", admin: true)
            #expect(ndjson.headers.first(name: "Content-Type") == "application/x-ndjson")
            let records = ndjson.text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            #expect(records.contains { $0["age"] as? Int == 42 && $0["country"] as? String == "XB" && $0["status"] as? String == "Positive" })
            #expect(
                records.allSatisfy {
                    Set($0.keys) == [
                        "submitted_on", "status", "country", "language", "age", "is_symptomatic", "symptoms", "positive_test_date",
                        "negative_test_date",
                    ]
                })

            let badFormat = try await platform.request(.GET, "/admin/v1/statistics/submissions?format=xml", admin: true)
            #expect(badFormat.status == 400)
            #expect(badFormat.text == #"{"error":{"message":"format must be csv or ndjson","reason":"invalid_query"}}"# + "\n")
            #expect(try await platform.request(.GET, "/admin/v1/statistics/submissions/counts?from=soon", admin: true).status == 400)
            #expect(try await platform.request(.GET, "/admin/v1/statistics/submissions").status == 401)
            _ = try platform.sql("DELETE FROM statistics.submissions WHERE device_sha256 = sha256('bulk'::bytea)")
        }
    }
}
