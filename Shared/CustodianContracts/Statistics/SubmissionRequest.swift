import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation

/// `POST /api/v1/submission/covid` as the app sends it (after the gateway opened its sealed payload), checked for form:
/// members in any case, each at most once, none unknown, those its status takes. Whether a country, language or
/// symptom is one the platform has is the service's to look up, and the API checks that member by member in the order
/// of docs/lemon.md: so each member's own problem is ``Deferred``, said only when the service reaches the member.
public struct SubmissionRequest: RoutedInput {
    public static var decoding: RequestDecoding { .lemon }

    public var status: SubmissionStatus?
    /// As sent: two letters.
    public var country: Deferred<String>?
    /// As sent: two letters.
    public var language: Deferred<String>?
    public var age: Deferred<Int>?
    public var positiveTestDate: Deferred<SentDate>?
    public var negativeTestDate: Deferred<SentDate>?
    public var isSymptomatic: Deferred<Bool>?
    /// Each key at most ``SubmissionProblem/maximumSymptomLength`` long, at most ``SubmissionProblem/maximumSymptoms``.
    public var symptoms: Deferred<[Deferred<String>]>?

    /// A test date, with its text for the message that refuses it as implausible.
    public struct SentDate: Sendable {
        public var date: Date
        public var text: String
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        let body = try request.body(JSONValue.self)
        guard case .object = body else {
            if body.isNull { throw SubmissionProblem.missingPayload("Missing request payload") }
            throw SubmissionProblem.invalidStructure("Invalid message structure: the payload must be a JSON object")
        }
        let members = try request.lemonBody(keyedBy: SubmissionField.self)
        if let unknown = members.unknownNames.first {
            throw Self.structure("unknown field '\(SubmissionProblem.clip(unknown))'")
        }
        if let repeated = SubmissionField.allCases.first(where: members.isRepeated) {
            throw Self.structure("\(repeated.rawValue) is given twice")
        }
        // Null is the same as leaving the field out.
        var values: [SubmissionField: JSONValue] = [:]
        for field in SubmissionField.allCases {
            if let value = try members.decodeIfPresent(JSONValue.self, forKey: field), !value.isNull { values[field] = value }
        }
        guard !values.isEmpty else { throw SubmissionProblem.missingPayload("Missing request payload") }

        if let value = values[.status] {
            guard let text = value.stringValue, let status = SubmissionStatus(spelling: text) else {
                throw SubmissionProblem.invalidStatus(
                    "Invalid status '\(SubmissionProblem.clip(Self.describe(value)))': use Positive, Negative, I Don't Know or Recovered")
            }
            self.status = status
        }
        let allowed = SubmissionField.common.union(status?.fields ?? [])
        for field in SubmissionField.allCases where values[field] != nil && !allowed.contains(field) {
            if let status { throw Self.structure("\(status.rawValue) does not take \(field.rawValue)") }
            throw Self.structure("\(field.rawValue) needs a Status that takes it")
        }

        country = try values[.country].map { value in
            try Deferred(Self.decoding) {
                guard let text = value.stringValue, Alpha2.isValid(text) else { throw SubmissionProblem.countryNotSupported(Self.describe(value)) }
                return text
            }
        }
        language = try values[.language].map { value in
            try Deferred(Self.decoding) {
                guard let text = value.stringValue, Alpha2.isValid(text) else { throw SubmissionProblem.languageNotSupported(Self.describe(value)) }
                return text
            }
        }
        age = try values[.age].map { value in try Deferred(Self.decoding) { try Self.age(value) } }
        positiveTestDate = try values[.positiveTestDate].map { value in try Deferred(Self.decoding) { try Self.date(value, .positiveTestDate) } }
        negativeTestDate = try values[.negativeTestDate].map { value in try Deferred(Self.decoding) { try Self.date(value, .negativeTestDate) } }
        isSymptomatic = try values[.isSymptomatic].map { value in
            try Deferred(Self.decoding) {
                guard case .bool(let flag) = value else { throw Self.structure("IsSymptomatic must be true or false") }
                return flag
            }
        }
        symptoms = try values[.symptoms].map { value in try Deferred(Self.decoding) { try Self.symptoms(value) } }
    }

    /// What could be read, as a body (a problem said only later is left out).
    public func encode(to encoder: any Encoder) throws {
        var body: [String: JSONValue] = [:]
        body["Status"] = status.map { .string($0.rawValue) }
        body["Country"] = country?.value.map { .string($0) }
        body["Language"] = language?.value.map { .string($0) }
        body["Age"] = age?.value.map { .int(Int64($0)) }
        body["PositiveTestDate"] = positiveTestDate?.value.map { .string($0.text) }
        body["NegativeTestDate"] = negativeTestDate?.value.map { .string($0.text) }
        body["IsSymptomatic"] = isSymptomatic?.value.map { .bool($0) }
        body["Symptoms"] = symptoms?.value.map { .array($0.compactMap(\.value).map { .string($0) }) }
        try HTTPInput(body: .object(body)).encode(to: encoder)
    }

    private static func structure(_ problem: String) -> RPCError {
        SubmissionProblem.invalidStructure("Invalid message structure for specified status: \(problem)")
    }

    private static func age(_ value: JSONValue) throws -> Int {
        let age: Int64? =
            switch value {
            case .int(let number): number
            case .double(let number) where number.rounded() == number && abs(number) < 1e6: Int64(number)
            default: nil
            }
        guard let age, (0...200).contains(age) else {
            throw SubmissionProblem.invalidAge("Invalid age (younger than 0 or older than 200): \(SubmissionProblem.clip(describe(value)))")
        }
        return Int(age)
    }

    private static func date(_ value: JSONValue, _ field: SubmissionField) throws -> SentDate {
        guard let text = value.stringValue, let date = LemonDate.parse(text) else {
            throw SubmissionProblem.invalidTestDates(
                "Invalid test dates: \(field.rawValue) '\(SubmissionProblem.clip(describe(value)))' is not a date (2020-03-29 13:00:09.1359267 or ISO 8601)"
            )
        }
        return SentDate(date: date, text: text)
    }

    private static func symptoms(_ value: JSONValue) throws -> [Deferred<String>] {
        guard case .array(let items) = value else { throw structure("Symptoms must be a list of symptom keys") }
        guard items.count <= SubmissionProblem.maximumSymptoms else {
            throw SubmissionProblem.invalidSymptomCount("Invalid symptom count (more than \(SubmissionProblem.maximumSymptoms)): \(items.count)")
        }
        return try items.map { item in
            try Deferred(decoding) {
                guard let key = item.stringValue else {
                    throw SubmissionProblem.invalidSymptom(
                        "Invalid symptom \(SubmissionProblem.clip(describe(item))): a symptom is a key such as question_positive_symptom-1")
                }
                guard key.count <= SubmissionProblem.maximumSymptomLength else {
                    throw SubmissionProblem.invalidSymptom(
                        "Invalid symptom (longer than \(SubmissionProblem.maximumSymptomLength) characters): '\(SubmissionProblem.clip(key))'")
                }
                return key
            }
        }
    }

    /// A member's value as a message quotes it.
    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .int(let number): String(number)
        case .double(let number): String(number)
        case .bool(let flag): String(flag)
        case .null: "null"
        case .array: "a list"
        case .object: "an object"
        }
    }
}
