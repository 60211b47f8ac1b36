import CustodianContracts
import CustodianRPC
import CustodianRuntime

/// The LEMON tracing app's statistics (seed 003): symptoms, countries and languages, survey submissions,
/// COVID-19 figures and their imports, and researchers' counts and exports (docs/lemon.md, docs/admin.md).
public enum StatisticsService {
    public static let migrations = StatisticsMigrations.all

    public static let definition = ServiceDefinition(name: "statistics", migrations: migrations) { environment in
        let database = environment.database
        let reference = ReferenceData(database: database)
        let submissions = Submissions(database: database, reference: reference)
        let figures = CovidFigures(database: database)

        var methods = RPCMethods()
        // The app's routes (`/api/v1/…`, a JWT of kind `app`).
        methods.register("statistics.symptoms.list", input: HTTPInput.self) { try await reference.symptoms($0, context: $1) }
        methods.register("statistics.submission.create", input: HTTPInput.self) { try await submissions.create($0, context: $1) }
        methods.register("statistics.covid.get", input: HTTPInput.self) { try await figures.get($0, context: $1) }
        methods.register("statistics.countries.list", input: HTTPInput.self) { try await reference.countries($0, context: $1) }
        methods.register("statistics.languages.list", input: HTTPInput.self) { try await reference.languages($0, context: $1) }
        // Internal: `auth` calls it when an app deletes itself.
        methods.register(StatisticsMethods.languagesSupported) { try await reference.isSupported(language: $0, context: $1) }
        methods.register(StatisticsMethods.deviceForget) { try await submissions.forget($0, context: $1) }
        // Admin routes (`/admin/v1/statistics/…`).
        methods.register("statistics.admin.countries.list", input: HTTPInput.self, requires: [.admin]) { try await reference.adminList(.countries, context: $1) }
        methods.register("statistics.admin.countries.upsert", input: HTTPInput.self, requires: [.admin]) { try await reference.adminUpsert(.countries, $0, context: $1) }
        methods.register("statistics.admin.languages.list", input: HTTPInput.self, requires: [.admin]) { try await reference.adminList(.languages, context: $1) }
        methods.register("statistics.admin.languages.upsert", input: HTTPInput.self, requires: [.admin]) { try await reference.adminUpsert(.languages, $0, context: $1) }
        methods.register("statistics.admin.symptoms.list", input: HTTPInput.self, requires: [.admin]) { try await reference.adminSymptoms(context: $1) }
        methods.register("statistics.admin.symptoms.upsert", input: HTTPInput.self, requires: [.admin]) { try await reference.adminUpsertSymptom($0, context: $1) }
        methods.register("statistics.admin.symptoms.deactivate", input: HTTPInput.self, requires: [.admin]) { try await reference.adminDeactivateSymptom($0, context: $1) }
        methods.register("statistics.admin.covid.import", input: HTTPInput.self, requires: [.admin], work: .cpuHeavy) { try await figures.importCSV($0, context: $1) }
        methods.register("statistics.admin.submissions.counts", input: HTTPInput.self, requires: [.admin]) { try await submissions.counts($0, context: $1) }
        methods.register("statistics.admin.submissions.export", input: HTTPInput.self, requires: [.admin], work: .cpuHeavy) { try await submissions.export($0, context: $1) }
        return methods
    }
}
