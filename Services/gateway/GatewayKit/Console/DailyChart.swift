import CustodianWeb
import Foundation

/// Counts per UTC day, one or more series stacked, for the pages of a participant, a device or an OpenSense device:
/// every day from `from` to `to` has a slot, and a day without any count is drawn as a marked gap. With `expected`
/// (a device's 144 heartbeats a day) the level is drawn across and the table gives each day's share of it.
/// `html` is the chart followed by a table of the same figures in a `<details>`, to insert as it is (`{{{chart}}}`).
///
///     DailyChart(id: "batches-chart", title: "Batches per day", noun: "batch", plural: "batches", from: "2026-11-01", to: "2026-11-30",
///                series: [.init(name: "batches", counts: ["2026-11-02": 12])]).html
struct DailyChart {
    struct Series {
        var name: String
        /// By date (`YYYY-MM-DD`); a date not here counts 0.
        var counts: [String: Int]
    }

    var id: String
    var title: String
    /// What is counted, singular (`reading`, `heartbeat`), and plural when not just an added "s" (`batches`).
    var noun: String
    var plural: String
    var days: [String]
    var series: [Series]
    var expected: Int?

    /// `from` and `to` are UTC dates; at most 366 days are drawn (the admin routes answer no more), from `to` backwards.
    init(
        id: String, title: String, noun: String, plural: String? = nil, from: String, to: String, series: [Series], expected: Int? = nil
    ) {
        self.id = id
        self.title = title
        self.noun = noun
        self.plural = plural ?? noun + "s"
        self.days = Self.dates(from: from, to: to)
        self.series = series
        self.expected = expected
    }

    func total(_ day: String) -> Int { series.reduce(0) { $0 + ($1.counts[day] ?? 0) } }

    var gaps: [String] { days.filter { total($0) == 0 } }

    var chart: BarChart {
        let gapDays = Set(gaps)
        let counted = days.count - gapDays.count
        var description =
            "\(ConsoleText.counted(days.reduce(0) { $0 + total($1) }, noun, plural: plural)) from \(days.first ?? "") to \(days.last ?? ""): "
            + "\(ConsoleText.counted(counted, "day")) with, \(ConsoleText.counted(gapDays.count, "day")) without (gaps)."
        if let expected { description += " Expected: \(expected) a day." }
        if !gapDays.isEmpty { description += " Gaps: \(gaps.joined(separator: ", "))." }
        return BarChart(
            id: id, title: title, description: description, slots: days.map { String($0.suffix(5)) }, series: series.map(\.name),
            values: days.map { day in series.map { $0.counts[day] ?? 0 } },
            gaps: Set(days.indices.filter { gapDays.contains(days[$0]) }),
            expected: expected.map { ($0, "expected: \($0) a day") }, empty: "No \(plural) in these days")
    }

    /// The chart, then its figures as a table (a gap's row says so in words).
    var html: String {
        let escape = HTMLText.escape
        var rows = ""
        for day in days {
            let total = total(day)
            var cells = series.map { "<td class=\"number\">\($0.counts[day] ?? 0)</td>" }.joined()
            if series.count > 1 { cells += "<td class=\"number\">\(total)</td>" }
            if let expected { cells += "<td class=\"number\">\(Int((Double(total) / Double(max(1, expected)) * 100).rounded()))%</td>" }
            let gap = total == 0 ? " class=\"gap\"" : ""
            rows += "<tr\(gap)><th scope=\"row\">\(day)\(total == 0 ? " (gap)" : "")</th>\(cells)</tr>\n"
        }
        var head = series.map { "<th scope=\"col\" class=\"number\">\(escape($0.name))</th>" }.joined()
        if series.count > 1 { head += "<th scope=\"col\" class=\"number\">All</th>" }
        if let expected { head += "<th scope=\"col\" class=\"number\">Of \(expected)</th>" }
        return """
            <figure class="chart">\(chart.svg)
            <details id="\(id)-figures"><summary>\(escape(title)): the figures</summary>
            <table id="\(id)-table"><thead><tr><th scope="col">Day (UTC)</th>\(head)</tr></thead>
            <tbody>\(rows)</tbody></table></details></figure>
            """
    }

    static func dates(from: String, to: String) -> [String] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        func date(_ text: String) -> Date? {
            let parts = text.split(separator: "-").compactMap { Int($0) }
            guard parts.count == 3, text.count == 10 else { return nil }
            return calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))
        }
        guard let first = date(from), let last = date(to), first <= last else { return [] }
        var days: [String] = []
        var day = last
        while day >= first, days.count < 366 {
            let parts = calendar.dateComponents([.year, .month, .day], from: day)
            days.append(String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0))
            guard let before = calendar.date(byAdding: .day, value: -1, to: day) else { break }
            day = before
        }
        return days.reversed()
    }
}
