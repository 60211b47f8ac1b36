import CustodianContracts
import CustodianJSON
import Crypto
import Foundation

/// A survey submission (`POST /api/v1/submission/covid`), validated and normalised.
public struct Submission: Sendable, Equatable {
    public typealias Status = SubmissionStatus
    public typealias Field = SubmissionField

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

/// The checks of `POST /api/v1/submission/covid` that need the reference data, run member by member where docs/lemon.md
/// runs them, each member's own problem (``SubmissionRequest``) said when its turn comes.
public enum SubmissionParser {
    public static func parse(_ request: SubmissionRequest, reference: ReferenceSets, now: Date = Date()) throws -> Submission {
        var submission = Submission(status: request.status)
        if let country = try request.country?.get() {
            guard reference.countries.contains(country.uppercased()) else { throw SubmissionProblem.countryNotSupported(country) }
            submission.country = country.uppercased()
        }
        if let language = try request.language?.get() {
            guard reference.languages.contains(language.lowercased()) else { throw SubmissionProblem.languageNotSupported(language) }
            submission.language = language.lowercased()
        }
        submission.age = try request.age?.get()
        for (field, sent) in [(SubmissionField.positiveTestDate, request.positiveTestDate), (.negativeTestDate, request.negativeTestDate)] {
            guard let sent = try sent?.get() else { continue }
            guard LemonDate.isPlausibleTestDate(sent.date, now: now) else { throw SubmissionProblem.implausibleTestDate(field, sent.text) }
            // Microseconds, as stored: the canonical form and the row agree.
            let rounded = Date(timeIntervalSince1970: (sent.date.timeIntervalSince1970 * 1_000_000).rounded() / 1_000_000)
            if field == .positiveTestDate { submission.positiveTestDate = rounded } else { submission.negativeTestDate = rounded }
        }
        submission.isSymptomatic = try request.isSymptomatic?.get()
        if let items = try request.symptoms?.get() {
            var keys: [String] = []
            for item in items {
                let key = try item.get()
                guard reference.symptoms.contains(key) else { throw SubmissionProblem.unregisteredSymptom(key) }
                guard !keys.contains(key) else { throw SubmissionProblem.duplicateSymptom(key) }
                keys.append(key)
            }
            submission.symptoms = keys.sorted()
        }
        return submission
    }
}
