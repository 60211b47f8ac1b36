import CustodianContracts
import CustodianHTTP
import CustodianRPC
import CustodianRuntime

/// The LEMON tracing app's statistics: symptoms, countries and languages, survey submissions,
/// COVID-19 figures and their imports, and researchers' counts and exports (docs/lemon.md, docs/admin.md).
public enum StatisticsService {
    public static let migrations = StatisticsMigrations.all

    public static let definition = ServiceDefinition(
        name: "statistics", migrations: migrations,
        // The Corona-Warn-App server forgets submissions after 14 days; so does this one unless told otherwise.
        retention: [Retention("lemon_submissions", default: .seconds(14 * 86400), table: "statistics.submissions", timeColumn: "submitted_at")]
    ) { environment in
        let database = environment.database
        let reference = ReferenceData(database: database)
        let submissions = Submissions(database: database, exportDatabase: environment.readDatabase, reference: reference)
        let figures = CovidFigures(database: database)

        var methods = RPCMethods()
        // The app's routes (`/api/v1/…`, a JWT of kind `app`).
        methods.register(StatisticsMethods.symptomsList, requires: .lemonApp) { try await reference.symptoms($0, context: $1) }
        // Who submits is checked before a body that cannot be read is answered, as the API always did.
        methods.register(StatisticsMethods.submissionCreate, requires: .lemonApp, beforeRefusingInput: { _ = try Access.appID($0) }) {
            try await submissions.create($0, context: $1)
        }
        methods.register(StatisticsMethods.covidGet, requires: .lemonApp) { try await figures.get($0, context: $1) }
        methods.register(StatisticsMethods.countriesList, requires: .lemonApp) { try await reference.countries($0, context: $1) }
        methods.register(StatisticsMethods.languagesList, requires: .lemonApp) { try await reference.languages($0, context: $1) }
        // Internal: `auth` calls it when an app deletes itself.
        methods.register(StatisticsMethods.languagesSupported) { try await reference.isSupported(language: $0, context: $1) }
        methods.register(StatisticsMethods.deviceForget) { try await submissions.forget($0, context: $1) }
        methods.register(StatisticsMethods.deviceMarkSynthetic) { try await submissions.markSynthetic($0, context: $1) }
        // Admin routes (`/admin/v1/statistics/…`).
        methods.register(StatisticsMethods.adminCountriesList, requires: [.admin]) {
            CountryList(countries: try await reference.adminList(.countries, context: $1))
        }
        methods.register(StatisticsMethods.adminCountriesUpsert, requires: [.admin]) { try await reference.adminUpsert(.countries, $0, context: $1) }
        methods.register(StatisticsMethods.adminLanguagesList, requires: [.admin]) {
            LanguageList(languages: try await reference.adminList(.languages, context: $1))
        }
        methods.register(StatisticsMethods.adminLanguagesUpsert, requires: [.admin]) { try await reference.adminUpsert(.languages, $0, context: $1) }
        methods.register(StatisticsMethods.adminSymptomsList, requires: [.admin]) { try await reference.adminSymptoms(context: $1) }
        methods.register(StatisticsMethods.adminSymptomsUpsert, requires: [.admin]) { try await reference.adminUpsertSymptom($0, context: $1) }
        methods.register(StatisticsMethods.adminSymptomsDeactivate, requires: [.admin]) {
            try await reference.adminDeactivateSymptom($0, context: $1)
        }
        methods.register(StatisticsMethods.adminCovidImport, requires: [.admin], work: .cpuHeavy) { try await figures.importCSV($0, context: $1) }
        methods.register(StatisticsMethods.adminCovidList, requires: [.admin]) { try await figures.list($0, context: $1) }
        methods.register(StatisticsMethods.adminSubmissionsCounts, requires: [.admin]) { try await submissions.counts($0, context: $1) }
        methods.register(StatisticsMethods.adminSubmissionsExport, requires: [.admin], work: .cpuHeavy) {
            try await submissions.export($0, context: $1)
        }
        return methods
    }
}
