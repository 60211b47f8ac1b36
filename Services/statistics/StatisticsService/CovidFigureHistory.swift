import CustodianContracts
import CustodianRPC
import CustodianRuntime
import Foundation
import PostgresNIO

/// `GET /admin/v1/statistics/covid`: what was imported, per country and day, for a researcher to check an import.
/// Read by an index either way: a country's days by the primary key (country, day), all countries' by
/// `covid_figures_by_day` (day DESC, country), so that a page costs its rows, not the table.
extension CovidFigures {
    func list(_ query: CovidFiguresQuery, context: CallContext) async throws -> CovidFiguresPage {
        let (country, from, to, limit, cursor) = (query.country, query.from, query.to, query.limit, query.after)
        if let country {
            var known = false
            for try await _ in try await database.query(
                "SELECT 1 FROM statistics.countries WHERE alpha2 = \(country)", logger: context.logger
            ).decode(Int.self) { known = true }
            guard known else {
                throw RPCError.badRequest(
                    "country \(country) is not supported (add it with PUT /admin/v1/statistics/countries/\(country))", reason: "invalid_alpha2")
            }
        }
        // Newest day first, then by country: a row comes after the cursor when its day is older, or the same day and
        // its country later in the alphabet. Absent bounds are infinite days rather than `IS NULL OR …`: a text cast to a
        // date is not folded at planning, and a bound inside an OR could not be the index scan's.
        let (firstDay, lastDay) = (from ?? "-infinity", to ?? "infinity")
        let (cursorDay, cursorCountry) = (cursor?.day ?? "infinity", cursor?.country ?? "")
        let rows = try await database.query(
            """
            SELECT country, to_char(day, 'YYYY-MM-DD'), confirmed, deaths, recovered, source, source_url, imported_at
            FROM statistics.covid_figures
            WHERE (\(country)::text IS NULL OR country = \(country))
              AND day >= \(firstDay)::date AND day <= \(lastDay)::date
              AND day <= \(cursorDay)::date AND (day < \(cursorDay)::date OR country > \(cursorCountry))
            ORDER BY day DESC, country LIMIT \(limit)
            """, logger: context.logger)
        var figures: [CovidFiguresPage.Figure] = []
        for try await (code, day, confirmed, deaths, recovered, source, url, importedAt) in rows.decode(
            (String, String, Int64, Int64, Int64?, String, String?, Date).self)
        {
            figures.append(
                CovidFiguresPage.Figure(
                    country: code, date: day, confirmed: confirmed, deaths: deaths, recovered: recovered, source: source, source_url: url,
                    imported_at: Date.ISO8601FormatStyle().format(importedAt)))
        }
        let last = figures.last.map { CovidFiguresQuery.Cursor(day: $0.date, country: $0.country).text }
        return CovidFiguresPage(figures: figures, next_after: figures.count == limit ? last : nil)
    }
}
