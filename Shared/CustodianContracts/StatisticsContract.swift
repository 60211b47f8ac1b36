import CustodianHTTP
import CustodianJSON
import CustodianRPC

/// The statistics service's methods: those the gateway routes, and those `auth` calls for the tracing app (whether
/// a language is served, in the handshake; forgetting a device's submissions when its registration is deleted).
public enum StatisticsMethods {
    public static let languagesSupported = RPCMethod<LanguageQuery, LanguageSupport>("statistics.languages.supported", retry: .safe)
    public static let deviceForget = RPCMethod<ForgetDeviceInput, ForgottenSubmissions>("statistics.device.forget")

    // The methods the gateway routes HTTP requests to (RouteTable): input an HTTPInput, result the API's JSON
    // (rendered by the gateway in the route's style), a RawHTTPReply, or a StreamPage.
    public static let adminCountriesList = RPCMethod<HTTPInput, JSONValue>("statistics.admin.countries.list", retry: .safe)
    public static let adminCountriesUpsert = RPCMethod<HTTPInput, JSONValue>("statistics.admin.countries.upsert", retry: .safe)
    public static let adminCovidImport = RPCMethod<HTTPInput, JSONValue>("statistics.admin.covid.import")
    public static let adminLanguagesList = RPCMethod<HTTPInput, JSONValue>("statistics.admin.languages.list", retry: .safe)
    public static let adminLanguagesUpsert = RPCMethod<HTTPInput, JSONValue>("statistics.admin.languages.upsert", retry: .safe)
    public static let adminSubmissionsCounts = RPCMethod<HTTPInput, JSONValue>("statistics.admin.submissions.counts", retry: .safe)
    public static let adminSubmissionsExport = RPCMethod<HTTPInput, StreamPage>("statistics.admin.submissions.export", retry: .safe)
    public static let adminSymptomsDeactivate = RPCMethod<HTTPInput, JSONValue>("statistics.admin.symptoms.deactivate")
    public static let adminSymptomsList = RPCMethod<HTTPInput, JSONValue>("statistics.admin.symptoms.list", retry: .safe)
    public static let adminSymptomsUpsert = RPCMethod<HTTPInput, JSONValue>("statistics.admin.symptoms.upsert", retry: .safe)
    public static let countriesList = RPCMethod<HTTPInput, JSONValue>("statistics.countries.list", retry: .safe)
    public static let covidGet = RPCMethod<HTTPInput, JSONValue>("statistics.covid.get", retry: .safe)
    public static let languagesList = RPCMethod<HTTPInput, JSONValue>("statistics.languages.list", retry: .safe)
    public static let submissionCreate = RPCMethod<HTTPInput, JSONValue>("statistics.submission.create", retry: .safe)
    public static let symptomsList = RPCMethod<HTTPInput, JSONValue>("statistics.symptoms.list", retry: .safe)
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
