import CustodianContracts
import CustodianJSON
import CustodianRPC
import Foundation
import ServiceTestSupport
import StatisticsService
import Testing

@Suite("Survey submissions")
struct SubmissionParserTests {
    static let reference = ReferenceSets(
        countries: ["GB", "ZA", "DE"], languages: ["en", "de"],
        symptoms: Set((1...12).map { "question_positive_symptom-\($0)" }))
    static let now = LemonDateTests.utc("2026-11-22T06:00:00.000Z")

    static func parse(_ json: String) throws -> Submission {
        try parse(json, reference: reference)
    }

    /// The body read as the service reads it (its form), then checked against `reference`.
    static func parse(_ json: String, reference: ReferenceSets) throws -> Submission {
        try SubmissionParser.parse(RoutedRequests.read(SubmissionRequest.self, body: json), reference: reference, now: now)
    }

    static func problem(_ json: String) -> RPCError? {
        do {
            _ = try parse(json)
            return nil
        } catch {
            return error as? RPCError
        }
    }

    @Test func theDocumentsRecoveredExampleIsAccepted() throws {
        let submission = try Self.parse(
            """
            {"Status":"Recovered","PositiveTestDate":"2020-03-29 13:00:09.1359267","NegativeTestDate":"2020-03-30 13:00:09.1359267",
             "Country":"GB","Language":"EN","Age":25,"IsSymptomatic":false}
            """)
        #expect(submission.status == .recovered)
        #expect(submission.country == "GB")
        #expect(submission.language == "en")
        #expect(submission.age == 25)
        #expect(submission.isSymptomatic == false)
        #expect(submission.positiveTestDate.map { LemonDate.format($0) } == "2020-03-29T13:00:09.135927")
    }

    @Test func keysInAnyCaseAndEquivalentBodiesGiveOneCanonicalForm() throws {
        let a = try Self.parse(
            #"{"Status":"Positive","Country":"za","Symptoms":["question_positive_symptom-2","question_positive_symptom-1"],"PositiveTestDate":"2020-05-01T10:00:00Z"}"#
        )
        let b = try Self.parse(
            #"{"symptoms":["question_positive_symptom-1","question_positive_symptom-2"],"positivetestdate":"2020-05-01 12:00:00+02:00","COUNTRY":"ZA","status":"positive"}"#
        )
        #expect(a == b)
        #expect(a.digest == b.digest)
        #expect(
            a.canonical
                == #"{"Country":"ZA","PositiveTestDate":"2020-05-01T10:00:00.000000","Status":"Positive","Symptoms":["question_positive_symptom-1","question_positive_symptom-2"]}"#
        )
        #expect(try Self.parse(#"{"Status":"Positive","Age":30}"#).digest != a.digest)
    }

    @Test func everyStatusSpellingIsRead() throws {
        for spelling in ["I Don't Know", "I don't know", "IDontKnow", "i_dont_know", "I Don’t Know"] {
            #expect(try Self.parse(#"{"Status":"\#(spelling)","IsSymptomatic":true}"#).status == .unknown, "\(spelling)")
        }
        #expect(try Self.parse(#"{"Status":"NEGATIVE"}"#).status == .negative)
        #expect(try Self.parse(#"{"Age":40}"#).status == nil)
    }

    @Test(
        arguments: [
            (
                #"{"Status":"Negative","IsSymptomatic":true}"#, "invalid_structure",
                "Invalid message structure for specified status: Negative does not take IsSymptomatic"
            ),
            (
                #"{"Status":"Positive","NegativeTestDate":"2020-05-01"}"#, "invalid_structure",
                "Invalid message structure for specified status: Positive does not take NegativeTestDate"
            ),
            (
                #"{"Status":"I Don't Know","PositiveTestDate":"2020-05-01"}"#, "invalid_structure",
                "Invalid message structure for specified status: I Don't Know does not take PositiveTestDate"
            ),
            (#"{"Symptoms":[]}"#, "invalid_structure", "Invalid message structure for specified status: Symptoms needs a Status that takes it"),
            (#"{"Status":"Positive","Colour":"red"}"#, "invalid_structure", "Invalid message structure for specified status: unknown field 'Colour'"),
            (
                #"{"Status":"Positive","status":"Positive"}"#, "invalid_structure",
                "Invalid message structure for specified status: Status is given twice"
            ),
            (
                #"{"Status":"Positive","IsSymptomatic":"yes"}"#, "invalid_structure",
                "Invalid message structure for specified status: IsSymptomatic must be true or false"
            ),
            (
                #"{"Status":"Positive","Symptoms":"fever"}"#, "invalid_structure",
                "Invalid message structure for specified status: Symptoms must be a list of symptom keys"
            ),
            (#"[1]"#, "invalid_structure", "Invalid message structure: the payload must be a JSON object"),
            (#"null"#, "missing_payload", "Missing request payload"),
            (#"{}"#, "missing_payload", "Missing request payload"),
            (#"{"Status":null}"#, "missing_payload", "Missing request payload"),
            (#"{"Status":"Maybe"}"#, "invalid_status", "Invalid status 'Maybe': use Positive, Negative, I Don't Know or Recovered"),
            (#"{"Status":3}"#, "invalid_status", "Invalid status '3': use Positive, Negative, I Don't Know or Recovered"),
            (#"{"Country":"FR"}"#, "unsupported_country", "Unsupported country 'FR'"),
            (#"{"Country":"Great Britain"}"#, "unsupported_country", "Unsupported country 'Great Britain'"),
            (#"{"Language":"xx"}"#, "invalid_alpha2", "Invalid Alpha2 'xx': not a supported language"),
            (#"{"Language":"english"}"#, "invalid_alpha2", "Invalid Alpha2 'english': not a supported language"),
            (#"{"Country":"\u00dfb"}"#, "unsupported_country", "Unsupported country 'ßb'"),
            (#"{"Age":-1}"#, "invalid_age", "Invalid age (younger than 0 or older than 200): -1"),
            (#"{"Age":201}"#, "invalid_age", "Invalid age (younger than 0 or older than 200): 201"),
            (#"{"Age":25.5}"#, "invalid_age", "Invalid age (younger than 0 or older than 200): 25.5"),
            (#"{"Age":"25"}"#, "invalid_age", "Invalid age (younger than 0 or older than 200): 25"),
            (
                #"{"Status":"Negative","NegativeTestDate":"2019-11-30 23:59:59"}"#, "invalid_test_dates",
                "Invalid test dates (in the future or before the first recorded case of COVID-19): NegativeTestDate 2019-11-30 23:59:59"
            ),
            (
                #"{"Status":"Positive","PositiveTestDate":"2030-01-01 00:00:00"}"#, "invalid_test_dates",
                "Invalid test dates (in the future or before the first recorded case of COVID-19): PositiveTestDate 2030-01-01 00:00:00"
            ),
            (
                #"{"Status":"Positive","PositiveTestDate":"last week"}"#, "invalid_test_dates",
                "Invalid test dates: PositiveTestDate 'last week' is not a date (2020-03-29 13:00:09.1359267 or ISO 8601)"
            ),
            (
                #"{"Status":"Positive","Symptoms":[\#((1...21).map { "\"s\($0)\"" }.joined(separator: ","))]}"#, "invalid_symptom_count",
                "Invalid symptom count (more than 20): 21"
            ),
            (
                #"{"Status":"Positive","Symptoms":["\#(String(repeating: "x", count: 51))"]}"#, "invalid_symptom",
                "Invalid symptom (longer than 50 characters): '\(String(repeating: "x", count: 51))'"
            ),
            (
                #"{"Status":"Positive","Symptoms":["question_positive_symptom-13"]}"#, "invalid_symptom",
                "Invalid symptom (does not match a registered symptom): 'question_positive_symptom-13'"
            ),
            (
                #"{"Status":"Positive","Symptoms":[7]}"#, "invalid_symptom",
                "Invalid symptom 7: a symptom is a key such as question_positive_symptom-1"
            ),
            (
                #"{"Status":"Positive","Symptoms":["question_positive_symptom-1","question_positive_symptom-1"]}"#, "duplicate_symptoms",
                "Duplicate symptoms: 'question_positive_symptom-1' is listed twice"
            ),
            // Member by member, each looked up where the API looks it up: a country it does not have is said before an age
            // that is no age, and an unregistered symptom before a later one that is no key.
            (#"{"Country":"FR","Age":-1}"#, "unsupported_country", "Unsupported country 'FR'"),
            (#"{"Country":"GB","Language":"xx","Age":-1}"#, "invalid_alpha2", "Invalid Alpha2 'xx': not a supported language"),
            (
                #"{"Status":"Positive","Symptoms":["question_positive_symptom-13",7]}"#, "invalid_symptom",
                "Invalid symptom (does not match a registered symptom): 'question_positive_symptom-13'"
            ),
        ] as [(String, String, String)])
    func everyProblemHasItsOwnMessage(json: String, reason: String, message: String) {
        let error = Self.problem(json)
        #expect(error?.code == .badRequest)
        #expect(error?.reason == reason)
        #expect(error?.message == message)
    }

    @Test func twentySymptomsAndTheAgeBoundsAreAccepted() throws {
        let reference = ReferenceSets(countries: [], languages: [], symptoms: Set((1...20).map { "s\($0)" }))
        let body = #"{"Status":"Positive","Symptoms":[\#((1...20).map { "\"s\($0)\"" }.joined(separator: ","))]}"#
        #expect(try Self.parse(body, reference: reference).symptoms?.count == 20)
        #expect(try Self.parse(#"{"Age":0}"#).age == 0)
        #expect(try Self.parse(#"{"Age":200}"#).age == 200)
    }
}
