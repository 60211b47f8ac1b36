import CustodianHTTP
import CustodianRPC

/// A survey's status, as `POST /api/v1/submission/covid` takes it (docs/lemon.md).
public enum SubmissionStatus: String, Sendable, CaseIterable {
    case positive = "Positive"
    case negative = "Negative"
    case unknown = "I Don't Know"
    case recovered = "Recovered"

    /// Which status-specific fields each status takes, beside the common ones (docs/lemon.md).
    public var fields: Set<SubmissionField> {
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

/// A member of a submission, in any case.
public enum SubmissionField: String, LemonMember {
    case status = "Status"
    case positiveTestDate = "PositiveTestDate"
    case negativeTestDate = "NegativeTestDate"
    case country = "Country"
    case language = "Language"
    case age = "Age"
    case isSymptomatic = "IsSymptomatic"
    case symptoms = "Symptoms"

    /// Taken whatever the status.
    public static let common: Set<SubmissionField> = [.status, .country, .language, .age]

    /// Never said: a submission reads every member as any JSON and words each problem itself (``SubmissionProblem``).
    public var refusal: String { "Invalid message structure for specified status: \(rawValue)" }
}

/// The checks of `POST /api/v1/submission/covid`, each with its own 400 and message (docs/lemon.md).
public enum SubmissionProblem: String, Sendable {
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

    public func callAsFunction(_ message: String) -> RPCError {
        RPCError.badRequest(message, reason: rawValue)
    }

    public static let maximumSymptoms = 20
    public static let maximumSymptomLength = 50

    /// The checks that need the reference data, with the same words as the checks of form before them.
    public static func countryNotSupported(_ sent: String) -> RPCError {
        unsupportedCountry("Unsupported country '\(clip(sent))'")
    }

    public static func languageNotSupported(_ sent: String) -> RPCError {
        invalidAlpha2("Invalid Alpha2 '\(clip(sent))': not a supported language")
    }

    public static func implausibleTestDate(_ field: SubmissionField, _ sent: String) -> RPCError {
        invalidTestDates("Invalid test dates (in the future or before the first recorded case of COVID-19): \(field.rawValue) \(sent)")
    }

    public static func unregisteredSymptom(_ key: String) -> RPCError {
        invalidSymptom("Invalid symptom (does not match a registered symptom): '\(key)'")
    }

    public static func duplicateSymptom(_ key: String) -> RPCError {
        duplicateSymptoms("Duplicate symptoms: '\(key)' is listed twice")
    }

    static func clip(_ text: String) -> String {
        Alpha2.clip(text, to: 60)
    }
}
