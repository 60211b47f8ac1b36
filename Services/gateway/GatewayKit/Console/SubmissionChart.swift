import CustodianContracts
import CustodianWeb

/// LEMON submissions per ISO week, stacked by status, as an SVG the server draws: no script, no library, readable by
/// screen readers through its title and description (the tables under it give the same figures).
struct SubmissionChart {
    struct Bar {
        var week: String
        /// Per status, in ``statuses`` order.
        var counts: [Int]
        var total: Int { counts.reduce(0, +) }
    }

    let statuses: [String]
    let bars: [Bar]

    /// Colours told apart also by people with the common colour-vision deficiencies (Okabe–Ito).
    static let palette = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]

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
        let width = 720, height = 300, left = 48, bottom = 48, top = 16, legendWidth = 150
        let plotWidth = width - left - legendWidth - 16, plotHeight = height - top - bottom
        let maximum = max(1, bars.map(\.total).max() ?? 1)
        let step = Self.gridStep(maximum)
        let scale = Double(plotHeight) / Double(((maximum + step - 1) / step) * step)
        let slot = bars.isEmpty ? 0 : plotWidth / bars.count
        let barWidth = max(2, min(48, slot * 7 / 10))
        let total = bars.map(\.total).reduce(0, +)
        var parts: [String] = []
        parts.append(
            ##"<svg xmlns="http://www.w3.org/2000/svg" id="submissions-chart" role="img" aria-labelledby="chart-title chart-desc" width="\##(width)" height="\##(height)" viewBox="0 0 \##(width) \##(height)">"##
        )
        parts.append(##"<title id="chart-title">LEMON submissions per ISO week, by status</title>"##)
        let description =
            bars.isEmpty
            ? "No submissions yet."
            : "\(ConsoleText.counted(total, "submission")) in \(ConsoleText.counted(bars.count, "week")), from \(bars.first!.week) to \(bars.last!.week). "
                + bars.map { "\($0.week): \($0.total)" }.joined(separator: "; ") + "."
        parts.append(##"<desc id="chart-desc">\##(HTMLText.escape(description))</desc>"##)
        // Grid lines and their values.
        var value = 0
        while Double(value) * scale <= Double(plotHeight) + 0.5 {
            let y = top + plotHeight - Int((Double(value) * scale).rounded())
            parts.append(##"<line x1="\##(left)" y1="\##(y)" x2="\##(left + plotWidth)" y2="\##(y)" stroke="#ccc"/>"##)
            parts.append(##"<text x="\##(left - 6)" y="\##(y + 4)" text-anchor="end">\##(value)</text>"##)
            value += step
        }
        for (index, bar) in bars.enumerated() {
            let x = left + index * slot + (slot - barWidth) / 2
            var y = Double(top + plotHeight)
            for (statusIndex, count) in bar.counts.enumerated() where count > 0 {
                let barHeight = Double(count) * scale
                y -= barHeight
                let colour = Self.palette[statusIndex % Self.palette.count]
                parts.append(
                    ##"<rect x="\##(x)" y="\##(Int(y.rounded()))" width="\##(barWidth)" height="\##(max(1, Int(barHeight.rounded())))" fill="\##(colour)"><title>\##(HTMLText.escape("\(bar.week), \(statuses[statusIndex]): \(count)"))</title></rect>"##
                )
            }
            // Label every week when they fit, else every few.
            let every = max(1, (bars.count * 64 + plotWidth - 1) / max(1, plotWidth))
            if index % every == 0 {
                parts.append(
                    ##"<text x="\##(x + barWidth / 2)" y="\##(top + plotHeight + 18)" text-anchor="middle">\##(HTMLText.escape(bar.week))</text>"##)
            }
        }
        parts.append(##"<line x1="\##(left)" y1="\##(top + plotHeight)" x2="\##(left + plotWidth)" y2="\##(top + plotHeight)" stroke="#1b1b1b"/>"##)
        for (index, status) in statuses.enumerated() {
            let y = top + 8 + index * 22
            let x = width - legendWidth
            parts.append(##"<rect x="\##(x)" y="\##(y - 10)" width="14" height="14" fill="\##(Self.palette[index % Self.palette.count])"/>"##)
            parts.append(##"<text x="\##(x + 20)" y="\##(y + 2)">\##(HTMLText.escape(status))</text>"##)
        }
        if bars.isEmpty {
            parts.append(##"<text x="\##(left + plotWidth / 2)" y="\##(top + plotHeight / 2)" text-anchor="middle">No submissions yet</text>"##)
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    /// A round step (1, 2, 5 × 10ⁿ) giving at most about five grid lines.
    static func gridStep(_ maximum: Int) -> Int {
        var step = 1
        while true {
            for factor in [1, 2, 5] where maximum / (step * factor) <= 5 { return step * factor }
            step *= 10
        }
    }
}
