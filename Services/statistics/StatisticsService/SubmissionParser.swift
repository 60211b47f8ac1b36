import CustodianJSON
import CustodianRPC
import Crypto
import Foundation

/// A survey submission (`POST /api/v1/submission/covid`), validated and normalised.
public struct Submission: Sendable, Equatable {
    public enum Status: String, Sendable, CaseIterable {
        case positive = "Positive"
        case negative = "Negative"
        case unknown = "I Don't Know"
        case recovered = "Recovered"

        /// Which status-specific fields each status takes, beside the common ones (docs/lemon.md).
        public var fields: Set<Field> {
            switch self {
            case .positive: [.positiveTestDate, .isSymptomatic, .symptoms]
            case .negative: [.negativeTestDate]
            case .unknown: [.isSymptomatic, .symptoms]
            case .recovered: [.positiveTestDate, .negativeTestDate, .isSymptomatic, .symptoms]
            }
        }

        /// Case, spaces, apostrophes, hyphens and underscores do not matter: `I Don't Know`, `I don't know`,
        /// `IDontKnow`, `i_dont_know` are one status.
        public init?(spelling: String) {
            let folded = spelling.lowercased().filter { !" '’-_".contains($0) }
            switch folded {
            case "positive": self = .positive
            case "negative": self = .negative
            case "idontknow": self = .unknown
            case "recovered": self = .recovered
            default: return nil
            }
        }
    }

    public enum Field: String, Sendable, CaseIterable {
        case status = "Status"
        case positiveTestDate = "PositiveTestDate"
        case negativeTestDate = "NegativeTestDate"
        case country = "Country"
        case language = "Language"
        case age = "Age"
        case isSymptomatic = "IsSymptomatic"
        case symptoms = "Symptoms"

        /// Taken whatever the status.
        public static let common: Set<Field> = [.status, .country, .language, .age]
    }

    public var status: Status?
    public var positiveTestDate: Date?
    public var negativeTestDate: Date?
    /// Upper-case alpha2.
    public var country: String?
    /// Lower-case alpha2.
    public var language: String?
    public var age: Int?
    public var isSymptomatic: Bool?
    /// Registered symptom keys, sorted.
    public var symptoms: [String]?

    public init(
        status: Status? = nil, positiveTestDate: Date? = nil, negativeTestDate: Date? = nil, country: String? = nil,
        language: String? = nil, age: Int? = nil, isSymptomatic: Bool? = nil, symptoms: [String]? = nil
    ) {
        self.status = status
        self.positiveTestDate = positiveTestDate
        self.negativeTestDate = negativeTestDate
        self.country = country
        self.language = language
        self.age = age
        self.isSymptomatic = isSymptomatic
        self.symptoms = symptoms
    }

    /// The normalised submission as JSON with sorted keys: two bodies that say the same thing (keys in
    /// another case or order, `gb` for `GB`, the same instant in another notation) give the same text.
    public var canonical: String {
        var object: [String: JSONValue] = [:]
        if let status { object["Status"] = .string(status.rawValue) }
        if let positiveTestDate { object["PositiveTestDate"] = .string(LemonDate.format(positiveTestDate)) }
        if let negativeTestDate { object["NegativeTestDate"] = .string(LemonDate.format(negativeTestDate)) }
        if let country { object["Country"] = .string(country) }
        if let language { object["Language"] = .string(language) }
        if let age { object["Age"] = .int(Int64(age)) }
        if let isSymptomatic { object["IsSymptomatic"] = .bool(isSymptomatic) }
        if let symptoms { object["Symptoms"] = .array(symptoms.map { .string($0) }) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(JSONValue.object(object))) ?? Data(), as: UTF8.self)
    }

    /// The idempotency key's second half: a retry of the same submission has the same digest.
    public var digest: Data { Data(SHA256.hash(data: Data(canonical.utf8))) }
}

/// What a submission is checked against: the supported countries and languages and the active symptoms.
public struct ReferenceSets: Sendable {
    public var countries: Set<String>
    public var languages: Set<String>
    public var symptoms: Set<String>

    public init(countries: Set<String>, languages: Set<String>, symptoms: Set<String>) {
        self.countries = countries
        self.languages = languages
        self.symptoms = symptoms
    }
}

/// The checks of `POST /api/v1/submission/covid`, each with its own 400 and message (docs/lemon.md).
public enum SubmissionParser {
    public static let maximumSymptoms = 20
    public static let maximumSymptomLength = 50

    public enum Problem: String, Sendable {
        case invalidStructure = "invalid_structure"
        case missingPayload = "missing_payload"
        case invalidStatus = "invalid_status"
        case unsupportedCountry = "unsupported_country"
        case invalidAlpha2 = "invalid_alpha2"
        case invalidAge = "invalid_age"
        case invalidTestDates = "invalid_test_dates"
        case invalidSymptomCount = "invalid_symptom_count"
        case invalidSymptom = "invalid_symptom"
        case duplicateSymptoms = "duplicate_symptoms"
    }

    static func fail(_ problem: Problem, _ message: String) -> RPCError {
        RPCError.badRequest(message, reason: problem.rawValue)
    }

    public static func parse(_ body: JSONValue, reference: ReferenceSets, now: Date = Date()) throws -> Submission {
        guard case .object(let object) = body else {
            if body.isNull { throw fail(.missingPayload, "Missing request payload") }
            throw fail(.invalidStructure, "Invalid message structure: the payload must be a JSON object")
        }
        // Keys in any case; null is the same as leaving the field out.
        var values: [Submission.Field: JSONValue] = [:]
        for (key, value) in object {
            guard let field = Submission.Field.allCases.first(where: { $0.rawValue.lowercased() == key.lowercased() }) else {
                throw fail(.invalidStructure, "Invalid message structure for specified status: unknown field '\(clip(key))'")
            }
            guard values[field] == nil else {
                throw fail(.invalidStructure, "Invalid message structure for specified status: \(field.rawValue) is given twice")
            }
            if !value.isNull { values[field] = value }
        }
        guard !values.isEmpty else { throw fail(.missingPayload, "Missing request payload") }

        var submission = Submission()
        if let value = values[.status] {
            guard let text = value.stringValue, let status = Submission.Status(spelling: text) else {
                throw fail(.invalidStatus, "Invalid status '\(clip(describe(value)))': use Positive, Negative, I Don't Know or Recovered")
            }
            submission.status = status
        }
        let allowed = Submission.Field.common.union(submission.status?.fields ?? [])
        for field in Submission.Field.allCases where values[field] != nil && !allowed.contains(field) {
            if let status = submission.status {
                throw fail(.invalidStructure, "Invalid message structure for specified status: \(status.rawValue) does not take \(field.rawValue)")
            }
            throw fail(.invalidStructure, "Invalid message structure for specified status: \(field.rawValue) needs a Status that takes it")
        }

        if let value = values[.country] {
            guard let text = value.stringValue, isAlpha2(text), reference.countries.contains(text.uppercased()) else {
                throw fail(.unsupportedCountry, "Unsupported country '\(clip(describe(value)))'")
            }
            submission.country = text.uppercased()
        }
        if let value = values[.language] {
            guard let text = value.stringValue, isAlpha2(text), reference.languages.contains(text.lowercased()) else {
                throw fail(.invalidAlpha2, "Invalid Alpha2 '\(clip(describe(value)))': not a supported language")
            }
            submission.language = text.lowercased()
        }
        if let value = values[.age] {
            let age: Int64? =
                switch value {
                case .int(let number): number
                case .double(let number) where number.rounded() == number && abs(number) < 1e6: Int64(number)
                default: nil
                }
            guard let age, (0...200).contains(age) else {
                throw fail(.invalidAge, "Invalid age (younger than 0 or older than 200): \(clip(describe(value)))")
            }
            submission.age = Int(age)
        }
        for field in [Submission.Field.positiveTestDate, .negativeTestDate] {
            guard let value = values[field] else { continue }
            guard let text = value.stringValue, let date = LemonDate.parse(text) else {
                throw fail(
                    .invalidTestDates,
                    "Invalid test dates: \(field.rawValue) '\(clip(describe(value)))' is not a date (2020-03-29 13:00:09.1359267 or ISO 8601)")
            }
            guard LemonDate.isPlausibleTestDate(date, now: now) else {
                throw fail(
                    .invalidTestDates, "Invalid test dates (in the future or before the first recorded case of COVID-19): \(field.rawValue) \(text)")
            }
            // Microseconds, as stored: the canonical form and the row agree.
            let rounded = Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1_000_000).rounded() / 1_000_000)
            if field == .positiveTestDate { submission.positiveTestDate = rounded } else { submission.negativeTestDate = rounded }
        }
        if let value = values[.isSymptomatic] {
            guard case .bool(let flag) = value else {
                throw fail(.invalidStructure, "Invalid message structure for specified status: IsSymptomatic must be true or false")
            }
            submission.isSymptomatic = flag
        }
        if let value = values[.symptoms] {
            guard case .array(let items) = value else {
                throw fail(.invalidStructure, "Invalid message structure for specified status: Symptoms must be a list of symptom keys")
            }
            guard items.count <= maximumSymptoms else {
                throw fail(.invalidSymptomCount, "Invalid symptom count (more than \(maximumSymptoms)): \(items.count)")
            }
            var keys: [String] = []
            for item in items {
                guard let key = item.stringValue else {
                    throw fail(.invalidSymptom, "Invalid symptom \(clip(describe(item))): a symptom is a key such as question_positive_symptom-1")
                }
                guard key.count <= maximumSymptomLength else {
                    throw fail(.invalidSymptom, "Invalid symptom (longer than \(maximumSymptomLength) characters): '\(clip(key))'")
                }
                guard reference.symptoms.contains(key) else {
                    throw fail(.invalidSymptom, "Invalid symptom (does not match a registered symptom): '\(key)'")
                }
                guard !keys.contains(key) else {
                    throw fail(.duplicateSymptoms, "Duplicate symptoms: '\(key)' is listed twice")
                }
                keys.append(key)
            }
            submission.symptoms = keys.sorted()
        }
        return submission
    }

    /// Two ASCII letters (checked before changing case: `ß` upper-cases to `SS`).
    static func isAlpha2(_ text: String) -> Bool {
        text.count == 2 && text.allSatisfy { $0.isASCII && $0.isLetter }
    }

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

    private static func clip(_ text: String) -> String {
        text.count > 60 ? String(text.prefix(60)) + "…" : text
    }
}
