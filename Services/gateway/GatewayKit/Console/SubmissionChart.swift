import CustodianContracts

/// LEMON submissions per ISO week, stacked by status, as a ``BarChart`` (the tables under it give the same figures).
struct SubmissionChart {
    struct Bar {
        var week: String
        /// Per status, in ``statuses`` order.
        var counts: [Int]
        var total: Int { counts.reduce(0, +) }
    }

    let statuses: [String]
    let bars: [Bar]

    /// From the counts of `GET /admin/v1/statistics/submissions/counts` (per week, status and country).
    init(counts: [SubmissionCounts.Count]) {
        var statuses: [String] = []
        var byWeek: [String: [String: Int]] = [:]
        for row in counts {
            let status = row.status ?? "none given"
            if !statuses.contains(status) { statuses.append(status) }
            byWeek[row.week, default: [:]][status, default: 0] += row.count
        }
        self.statuses = statuses
        bars = byWeek.keys.sorted().map { week in Bar(week: week, counts: statuses.map { byWeek[week]?[$0] ?? 0 }) }
    }

    var svg: String {
        let total = bars.map(\.total).reduce(0, +)
        let description =
            bars.isEmpty
            ? "No submissions yet."
            : "\(ConsoleText.counted(total, "submission")) in \(ConsoleText.counted(bars.count, "week")), from \(bars.first!.week) to \(bars.last!.week). "
                + bars.map { "\($0.week): \($0.total)" }.joined(separator: "; ") + "."
        return BarChart(
            id: "submissions-chart", title: "LEMON submissions per ISO week, by status", description: description, slots: bars.map(\.week),
            series: statuses, values: bars.map(\.counts), empty: "No submissions yet"
        ).svg
    }
}
