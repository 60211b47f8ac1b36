import CustodianContracts
import CustodianHTTP
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The LEMON page's view model: submissions per week as a chart, their totals by status and by country, the export,
/// the imported COVID figures (newest day first, a page at a time, filtered by country and days), and the import form.
struct LemonView: ConsoleView {
    var chart: String
    var statuses: [Total]
    var countries: [Total]
    var figures: [Figure] = []
    /// The figures' filter as typed, kept in its fields.
    var filter = Filter()
    /// The next (older) page's address and, on a later page, the first's: the filter kept.
    var next: String?
    var first: String?
    var csrf = ""

    struct Figure {
        var country: String
        var date: String
        var confirmed: Int64
        var deaths: Int64
        var recovered: String
        var source: String
        var imported_at: String
    }

    struct Filter {
        var country: String?
        var from: String?
        var to: String?
        /// Whether any is set (a link to all figures).
        var any = false
    }

    struct Total {
        var name: String
        var count: Int
    }
}

/// A COVID-figure import's page: at once, how many rows are being imported; when the service answers, what came of it.
struct CovidImportView: ConsoleView {
    var rows: String
    var source: String?
    var csrf = ""
}

struct CovidOutcomeView {
    var imported: Imported?
    var error: String?

    struct Imported {
        var rows: String
        var inserted: Int
        var updated: Int
        var countries: String
        var first_day: String
        var last_day: String
    }
}

extension ConsoleRoutes {
    /// The LEMON page; `figures`: the figures' filter and page in the page's address (none: the newest figures).
    func lemon(
        _ visit: ConsoleVisit, error: ConsoleFailure? = nil, figures query: ConsoleListQuery<CovidFiguresQuery>? = nil
    ) async throws -> Response {
        let query = query ?? ConsoleListQuery(visit, names: [])
        async let figures = list(StatisticsMethods.adminCovidList, query, for: visit)
        let counts = try await admin.call(StatisticsMethods.adminSubmissionsCounts, SubmissionRange(), for: visit).counts
        func totals(_ key: (SubmissionCounts.Count) -> String?) -> [LemonView.Total] {
            Dictionary(counts.map { (key($0) ?? "none given", $0.count) }, uniquingKeysWith: +).sorted { $0.key < $1.key }
                .map { .init(name: $0.key, count: $0.value) }
        }
        var view = LemonView(chart: SubmissionChart(counts: counts).svg, statuses: totals(\.status), countries: totals(\.country))
        let (page, refusal) = try await figures
        view.figures = (page?.figures ?? []).map {
            .init(
                country: $0.country, date: $0.date, confirmed: $0.confirmed, deaths: $0.deaths, recovered: $0.recovered.map(String.init) ?? "—",
                source: $0.source, imported_at: ConsoleText.display($0.imported_at))
        }
        let typed = query.typed
        view.filter = .init(country: typed["country"], from: typed["from"], to: typed["to"], any: typed.keys.contains { $0 != "after" })
        view.next = query.link("/console/lemon", "after", page?.next_after)
        view.first = query.firstLink("/console/lemon", "after")
        let failure = error ?? refusal
        return ConsolePage(title: "LEMON", template: "lemon", view: view, status: failure?.status ?? .ok, error: failure?.message, section: "lemon")
            .response(csrf: visit.csrf)
    }

    func downloadSubmissions(_ visit: ConsoleVisit) async throws -> Response {
        try await download(visit, StatisticsMethods.adminSubmissionsExport, names: ["format", "from", "to"]) { error in
            try await lemon(visit, error: error)
        }
    }

    /// A COVID-figure import takes seconds for a large file (every line is checked, then all are stored in one
    /// transaction), so the page is sent in two parts: at once, how many rows are being imported; when the service
    /// answers, what came of it. Browsers show the first part while they wait, without a script. The status is sent
    /// with the first part, so a file the service refuses is a 200 page that says why, in an alert.
    func importCovid(_ visit: ConsoleVisit) async throws -> Response {
        guard let file = visit.field("file"), file.contains(where: { !$0.isWhitespace }) else {
            return try await lemon(visit, error: ConsoleFailure(status: .badRequest, message: "Choose a CSV file to import."))
        }
        let rows = max(0, file.split(whereSeparator: \.isNewline).filter { $0.contains { !$0.isWhitespace } }.count - 1)
        let request = CovidImportRequest(
            source: visit.text("source") ?? CovidImportRequest.defaultSource, sourceURL: visit.text("source_url"), csv: file)
        let page = ConsolePage(
            title: "COVID figures import", template: "covid-import",
            view: CovidImportView(rows: ConsoleText.counted(rows, "row"), source: visit.text("source")), section: "lemon"
        ).html(csrf: visit.csrf)
        let parts = page.components(separatedBy: "<!--outcome-->")
        let (head, tail) = (parts[0], parts.dropFirst().joined())
        let admin = self.admin
        var response = ConsoleLayout.html("")
        response.body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: head))
            var outcome = CovidOutcomeView()
            do {
                let result = try await admin.call(StatisticsMethods.adminCovidImport, request, for: visit)
                outcome.imported = .init(
                    rows: ConsoleText.counted(result.rows, "row"), inserted: result.inserted, updated: result.updated,
                    countries: result.countries.joined(separator: ", "), first_day: result.first_day, last_day: result.last_day)
            } catch let failure as ConsoleFailure {
                outcome.error = failure.message
            }
            try await writer.write(ByteBuffer(string: ConsoleTemplates.render(outcome, "covid-outcome") + tail))
            try await writer.finish(nil)
        }
        return response
    }
}
