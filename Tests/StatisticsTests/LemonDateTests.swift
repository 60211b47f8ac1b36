import CustodianContracts
import Foundation
import StatisticsService
import Testing

@Suite("LEMON dates")
struct LemonDateTests {
    static func utc(_ text: String) -> Date { try! Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) }

    @Test func theDocumentsFormatParsesAsUTCToTheMicrosecond() throws {
        let date = try #require(LemonDate.parse("2020-03-29 13:00:09.1359267"))
        #expect(LemonDate.format(date) == "2020-03-29T13:00:09.135927")
        #expect(abs(date.timeIntervalSince1970 - (Self.utc("2020-03-29T13:00:09.000Z").timeIntervalSince1970 + 0.135927)) < 1e-6)
        #expect(LemonDate.parse("2020-03-29 13:00:09.9999996").map { LemonDate.format($0) } == "2020-03-29T13:00:10.000000")
    }

    @Test func iso8601WithZonesAndBareDaysParse() throws {
        #expect(LemonDate.parse("2020-03-29T13:00:09Z") == Self.utc("2020-03-29T13:00:09.000Z"))
        #expect(LemonDate.parse("2020-03-29T15:00:09+02:00") == Self.utc("2020-03-29T13:00:09.000Z"))
        #expect(LemonDate.parse("2020-03-29T08:30:09-0430") == Self.utc("2020-03-29T13:00:09.000Z"))
        #expect(LemonDate.parse("2020-03-29T13:00:09.5Z") == Self.utc("2020-03-29T13:00:09.500Z"))
        #expect(LemonDate.parse("2020-03-29T13:00") == Self.utc("2020-03-29T13:00:00.000Z"))
        #expect(LemonDate.parse("2020-03-29") == Self.utc("2020-03-29T00:00:00.000Z"))
        #expect(LemonDate.parse("2020-02-29") != nil)
    }

    @Test func whatIsNoDateIsRefused() {
        for text in [
            "", "yesterday", "2020-3-29", "2020-02-30", "2021-02-29", "2020-13-01", "2020-03-29 25:00:00", "2020-03-29T13:00:60Z",
            "2020-03-29 13:00:09.", "2020-03-29 13:00:09.1234567890", "2020-03-29T13:00:09+15:00", "2020-03-29T13:00:09Zjunk",
            "29/03/2020", "2020-03-29 13:00:09.1359267 and a lot more text after it",
        ] {
            #expect(LemonDate.parse(text) == nil, "\(text)")
        }
    }

    @Test func testDatesMayNeitherPrecedeTheFirstCaseNorLieInTheFuture() throws {
        let now = Self.utc("2026-11-22T06:00:00.000Z")
        #expect(LemonDate.isPlausibleTestDate(try #require(LemonDate.parse("2019-12-01")), now: now))
        #expect(!LemonDate.isPlausibleTestDate(try #require(LemonDate.parse("2019-11-30 23:59:59")), now: now))
        #expect(LemonDate.isPlausibleTestDate(try #require(LemonDate.parse("2026-11-22 19:59:59")), now: now))
        #expect(!LemonDate.isPlausibleTestDate(try #require(LemonDate.parse("2026-11-22 20:00:01")), now: now))
    }
}

@Suite("COVID-19 CSV imports")
struct CovidCSVTests {
    static let now = LemonDateTests.utc("2026-11-22T06:00:00.000Z")

    @Test func rowsParseWithOptionalRecoveredCountsQuotesAndCRLF() throws {
        let text = "\u{FEFF}Country,Date,Confirmed,Deaths,Recovered\r\nza,2020-05-17,16433,286,7298\r\n\"GB\", 2020-05-17 ,243695,34636,\r\n\r\n"
        let rows = try CovidCSV.parse(text, countries: ["ZA", "GB"], now: Self.now).get()
        #expect(
            rows == [
                CovidCSV.Row(line: 2, country: "ZA", day: "2020-05-17", confirmed: 16433, deaths: 286, recovered: 7298),
                CovidCSV.Row(line: 3, country: "GB", day: "2020-05-17", confirmed: 243695, deaths: 34636, recovered: nil),
            ])
    }

    @Test func everyBadLineIsReportedWithItsNumber() throws {
        let text = """
            country,date,confirmed,deaths,recovered
            ZA,2020-05-17,1,2,3
            ZZ,2020-05-17,1,2,3
            ZAF,2020-05-17,1,2,3
            ZA,17.05.2020,1,2,3
            ZA,2019-11-30,1,2,3
            ZA,2030-01-01,1,2,3
            ZA,2020-05-18,-1,2,3
            ZA,2020-05-18,1,x,3
            ZA,2020-05-18,1,2
            ZA,2020-05-17,4,5,6
            """
        guard case .failure(let invalid) = CovidCSV.parse(text, countries: ["ZA"], now: Self.now) else {
            Issue.record("the file was accepted")
            return
        }
        let errors = invalid.lines
        #expect(errors.map(\.line) == [3, 4, 5, 6, 7, 8, 9, 10, 11])
        #expect(errors[0].message == "country ZZ is not supported (add it with PUT /admin/v1/statistics/countries/ZZ)")
        #expect(errors[1].message == "country 'ZAF' is not an alpha2 code")
        #expect(errors[2].message == "date '17.05.2020' is not a day (YYYY-MM-DD)")
        #expect(errors[3].message.hasPrefix("date 2019-11-30 is in the future or before the first recorded case"))
        #expect(errors[4].message.hasPrefix("date 2030-01-01 is in the future"))
        #expect(errors[5].message == "confirmed '-1' is not a whole number from 0 to 100000000000")
        #expect(errors[6].message == "deaths 'x' is not a whole number from 0 to 100000000000")
        #expect(errors[7].message == "expected 5 fields (country,date,confirmed,deaths,recovered), found 4")
        #expect(errors[8].message == "ZA on 2020-05-17 is already on line 2")
    }

    @Test func theHeaderIsRequired() {
        guard case .failure(let invalid) = CovidCSV.parse("ZA,2020-05-17,1,2,3\n", countries: nil, now: Self.now) else {
            Issue.record("accepted without a header")
            return
        }
        #expect(invalid.lines == [CovidCSV.LineError(line: 1, message: "the header must be country,date,confirmed,deaths,recovered")])
        guard case .failure(let empty) = CovidCSV.parse("\n\n", countries: nil, now: Self.now) else {
            Issue.record("accepted an empty file")
            return
        }
        #expect(empty.lines.first?.message.hasPrefix("the file is empty") == true)
    }

    /// The sample `custodian up` imports is the file in Deploy/demo, byte for byte.
    @Test func theEmbeddedDemoSampleIsTheShippedFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = try String(contentsOf: root.appendingPathComponent("Deploy/demo/covid-sample.csv"), encoding: .utf8)
        let swift = try String(contentsOf: root.appendingPathComponent("Services/custodian/CustodianCommands/Up/CovidSample.swift"), encoding: .utf8)
        // The literal's lines, indented as the formatter indents them (Swift drops the indentation of the closing quotes).
        let literal = swift.components(separatedBy: "\"\"\"")[1].split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.drop { $0 == " " } }.joined(separator: "\n")
        #expect(literal == "\n" + file)
        let rows = try CovidCSV.parse(file, countries: nil, now: Self.now).get()
        #expect(Set(rows.map(\.country)).count >= 4)
    }
}
