import CustodianHTTP
import CustodianJSON
import CustodianRPC

/// The statistics service's methods: those the gateway routes, and those `auth` calls for the tracing app (whether
/// a language is served, in the handshake; forgetting a device's submissions when its registration is deleted).
public enum StatisticsMethods {
    public static let languagesSupported = RPCMethod<LanguageQuery, LanguageSupport>("statistics.languages.supported", retry: .safe)
    public static let deviceForget = RPCMethod<ForgetDeviceInput, ForgottenSubmissions>("statistics.device.forget")
    /// No route; `auth` calls it when it registers a synthetic app instance, whose submissions researchers then do not see.
    public static let deviceMarkSynthetic = RPCMethod<ForgetDeviceInput, Empty>("statistics.device.markSynthetic", retry: .safe)

    // The routes of docs/lemon.md and their admin routes (docs/admin.md), typed (docs/rpc.md, "Typed routed methods").
    public static let adminCountriesList = RoutedMethod<NoInput, CountryList>("statistics.admin.countries.list", retry: .safe)
    public static let adminCountriesUpsert = RoutedMethod<PlaceUpsert, Place>("statistics.admin.countries.upsert", retry: .safe)
    public static let adminCovidImport = RoutedMethod<CovidImportRequest, CovidImportResult>("statistics.admin.covid.import")
    public static let adminCovidList = RoutedMethod<CovidFiguresQuery, CovidFiguresPage>("statistics.admin.covid.list", retry: .safe)
    public static let adminLanguagesList = RoutedMethod<NoInput, LanguageList>("statistics.admin.languages.list", retry: .safe)
    public static let adminLanguagesUpsert = RoutedMethod<PlaceUpsert, Place>("statistics.admin.languages.upsert", retry: .safe)
    public static let adminSubmissionsCounts = RoutedMethod<SubmissionRange, SubmissionCounts>("statistics.admin.submissions.counts", retry: .safe)
    /// Streamed: the export is a CSV or NDJSON body, a page per call.
    public static let adminSubmissionsExport = RoutedMethod<SubmissionExportQuery, StreamPage>("statistics.admin.submissions.export", retry: .safe)
    public static let adminSymptomsDeactivate = RoutedMethod<SymptomPath, Symptom>("statistics.admin.symptoms.deactivate")
    public static let adminSymptomsList = RoutedMethod<NoInput, SymptomList>("statistics.admin.symptoms.list", retry: .safe)
    public static let adminSymptomsUpsert = RoutedMethod<SymptomUpsert, Symptom>("statistics.admin.symptoms.upsert", retry: .safe)
    public static let countriesList = RoutedMethod<CountriesQuery, PlaceNames>("statistics.countries.list", retry: .safe)
    public static let covidGet = RoutedMethod<CovidQuery, CovidAnswer>("statistics.covid.get", retry: .safe)
    public static let languagesList = RoutedMethod<LanguagesQuery, PlaceNames>("statistics.languages.list", retry: .safe)
    public static let submissionCreate = RoutedMethod<SubmissionRequest, LemonNoData>("statistics.submission.create", retry: .safe)
    public static let symptomsList = RoutedMethod<SymptomsQuery, [SymptomText]>("statistics.symptoms.list", retry: .safe)
}

/// `statistics.languages.supported`: whether apps can be served in `language` (an alpha2 code).
public struct LanguageQuery: Codable, Sendable {
    public var language: String

    public init(language: String) {
        self.language = language
    }
}

public struct LanguageSupport: Codable, Sendable {
    public var supported: Bool

    public init(supported: Bool) {
        self.supported = supported
    }
}

/// `statistics.device.forget`: the device whose submissions go.
public struct ForgetDeviceInput: Codable, Sendable {
    public var deviceId: String

    public init(deviceId: String) {
        self.deviceId = deviceId
    }
}

public struct ForgottenSubmissions: Codable, Sendable {
    public var deleted: Int

    public init(deleted: Int) {
        self.deleted = deleted
    }
}
