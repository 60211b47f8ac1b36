import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianRuntime
import Foundation
import Logging
import PostgresNIO

/// Daily COVID-19 figures per country, imported from public case data, and what apps read of them.
public struct CovidFigures: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    static let globalName = "Global"

    struct Latest: Sendable {
        var alpha2: String
        var name: String
        var day: Date
        var confirmed: Int64
        var deaths: Int64
        var recovered: Int64?
        var source: String
        var sourceURL: String?
        var importedAt: Date
    }

    /// `GET /api/v1/statistics/covid/google?countries=ZA&countries=GB`: each country's latest figures; one
    /// country gives an object, several an array in the order asked (countries without figures left out),
    /// none the global totals.
    func get(_ input: CovidQuery, context: CallContext) async throws -> CovidAnswer {
        let requested = input.countries
        var supported = Set<String>()
        for try await code in try await database.query(
            "SELECT alpha2 FROM statistics.countries WHERE active AND alpha2 = ANY(\(requested))", logger: context.logger
        ).decode(String.self) {
            supported.insert(code)
        }
        if let unsupported = requested.first(where: { !supported.contains($0) }) {
            throw RPCError.badRequest("Invalid alpha2 code '\(unsupported)': not a supported country", reason: "invalid_alpha2")
        }
        let latest = try await self.latest(countries: requested.isEmpty ? nil : requested, logger: context.logger)
        if requested.isEmpty {
            guard !latest.isEmpty else {
                throw RPCError.notFound("No COVID-19 statistics have been imported yet", reason: "no_statistics")
            }
            return .one(Self.global(latest))
        }
        let byCountry = Dictionary(latest.map { ($0.alpha2, $0) }, uniquingKeysWith: { first, _ in first })
        if requested.count == 1 {
            guard let figures = byCountry[requested[0]] else {
                throw RPCError.notFound("No COVID-19 statistics for \(requested[0]) yet", reason: "no_statistics")
            }
            return .one(Self.render(figures))
        }
        return .several(requested.compactMap { byCountry[$0] }.map(Self.render))
    }

    private func latest(countries: [String]?, logger: Logger) async throws -> [Latest] {
        let rows = try await database.query(
            """
            SELECT DISTINCT ON (f.country) f.country, c.name, f.day::timestamp AT TIME ZONE 'UTC', f.confirmed, f.deaths, f.recovered,
                f.source, f.source_url, f.imported_at
            FROM statistics.covid_figures f JOIN statistics.countries c ON c.alpha2 = f.country
            WHERE \(countries)::text[] IS NULL OR f.country = ANY(\(countries))
            ORDER BY f.country, f.day DESC
            """, logger: logger)
        var latest: [Latest] = []
        for try await (alpha2, name, day, confirmed, deaths, recovered, source, url, importedAt)
            in rows.decode((String, String, Date, Int64, Int64, Int64?, String, String?, Date).self)
        {
            latest.append(
                Latest(
                    alpha2: alpha2, name: name, day: day, confirmed: confirmed, deaths: deaths, recovered: recovered,
                    source: source, sourceURL: url, importedAt: importedAt))
        }
        return latest
    }

    static func render(_ figures: Latest) -> CovidFigure {
        CovidFigure(
            countryName: figures.name, contractedCount: figures.confirmed, deathCount: figures.deaths, recoveredCount: figures.recovered,
            source: figures.source, sourceCreatedAt: LemonDate.format(figures.day, fraction: false), sourceUrl: figures.sourceURL,
            createdAt: LemonDate.format(figures.importedAt))
    }

    /// The sum of every country's latest figures. RecoveredCount sums the countries that report it (null
    /// when none does); Source lists the distinct sources; SourceUrl is set when there is only one.
    static func global(_ latest: [Latest]) -> CovidFigure {
        let recovered = latest.compactMap(\.recovered)
        let sources = Array(Set(latest.map(\.source))).sorted()
        let urls = Set(latest.map(\.sourceURL))
        return CovidFigure(
            countryName: globalName, contractedCount: latest.reduce(0) { $0 + $1.confirmed }, deathCount: latest.reduce(0) { $0 + $1.deaths },
            recoveredCount: recovered.isEmpty ? nil : recovered.reduce(0, +), source: sources.joined(separator: ", "),
            sourceCreatedAt: LemonDate.format(latest.map(\.day).max()!, fraction: false), sourceUrl: urls.count == 1 ? urls.first! : nil,
            createdAt: LemonDate.format(latest.map(\.importedAt).max()!))
    }

    // MARK: Imports

    /// `POST /admin/v1/statistics/covid/imports?source=…&source_url=…` with a CSV body: every line checked
    /// first, then all rows stored in one transaction (a day already imported for a country is replaced).
    func importCSV(_ input: CovidImportRequest, context: CallContext) async throws -> CovidImportResult {
        let (source, sourceURL, text) = (input.source, input.sourceURL, input.csv)
        var countries = Set<String>()
        for try await code in try await database.query("SELECT alpha2 FROM statistics.countries", logger: context.logger).decode(String.self) {
            countries.insert(code)
        }
        let rows: [CovidCSV.Row]
        switch CovidCSV.parse(text, countries: countries) {
        case .success(let parsed): rows = parsed
        case .failure(let invalid):
            let errors = invalid.lines
            let shown = errors.prefix(CovidCSV.maximumReportedErrors)
            let summary = shown.prefix(3).map { $0.description }.joined(separator: "; ")
            throw RPCError.badRequest(
                errors.count == 1
                    ? "The CSV is invalid: \(summary)" : "\(errors.count) lines of the CSV are invalid: \(summary)\(errors.count > 3 ? "; …" : "")",
                reason: "invalid_csv",
                details: .array(
                    shown.map { (error: CovidCSV.LineError) -> JSONValue in ["line": .int(Int64(error.line)), "message": .string(error.message)] }))
        }
        guard !rows.isEmpty else {
            throw RPCError.badRequest("The CSV has a header but no rows", reason: "invalid_csv")
        }
        let logger = context.logger
        var inserted = 0
        var updated = 0
        (inserted, updated) = try await database.withTransaction(logger: logger) { connection in
            var inserted = 0
            var updated = 0
            var start = 0
            while start < rows.count {
                let batch = rows[start..<min(start + 5000, rows.count)]
                start += batch.count
                let codes = batch.map(\.country)
                let days = batch.map(\.day)
                let confirmed = batch.map(\.confirmed)
                let deaths = batch.map(\.deaths)
                let recovered = batch.map { $0.recovered ?? -1 }
                let result = try await connection.query(
                    """
                    INSERT INTO statistics.covid_figures (country, day, confirmed, deaths, recovered, source, source_url)
                    SELECT r.country, r.day::date, r.confirmed, r.deaths, NULLIF(r.recovered, -1), \(source), \(sourceURL)
                    FROM unnest(\(codes)::text[], \(days)::text[], \(confirmed)::bigint[], \(deaths)::bigint[], \(recovered)::bigint[])
                        AS r(country, day, confirmed, deaths, recovered)
                    ON CONFLICT (country, day) DO UPDATE SET confirmed = EXCLUDED.confirmed, deaths = EXCLUDED.deaths,
                        recovered = EXCLUDED.recovered, source = EXCLUDED.source, source_url = EXCLUDED.source_url, imported_at = now()
                    RETURNING (xmax = 0)
                    """, logger: logger)
                for try await fresh in result.decode(Bool.self) {
                    if fresh { inserted += 1 } else { updated += 1 }
                }
            }
            return (inserted, updated)
        }
        let days = rows.map(\.day)
        let result = CovidImportResult(
            rows: rows.count, inserted: inserted, updated: updated, countries: Array(Set(rows.map(\.country))).sorted(),
            first_day: days.min()!, last_day: days.max()!, source: source, source_url: sourceURL)
        logger.notice(
            "COVID-19 figures imported",
            metadata: ["rows": .stringConvertible(rows.count), "inserted": .stringConvertible(inserted), "source": .string(source)])
        return result
    }
}
