import CustodianWeb

/// Stacked bars over labelled slots (weeks, days) as an SVG the server draws, for the console's charts
/// (``SubmissionChart``, ``DailyChart``): no script, no style attribute, nothing loaded from elsewhere. Nothing is told by
/// colour alone: each series has a fill pattern of its own (solid, hatched, dotted, …) shown in the legend, every bar
/// part has a `<title>` naming its slot, series and count, and the chart has a `<title>` and a `<desc>` with its figures.
/// A slot marked as a gap (a day without readings) is drawn as a cross-hatched band with a × on the axis, not left empty.
struct BarChart {
    /// The SVG's id; its parts' ids (patterns, title, description) start with it, so two charts can share a page.
    var id: String
    var title: String
    var description: String
    /// The slots, left to right, and what each bar's stack is made of there (per series, in ``series`` order).
    var slots: [String]
    var series: [String]
    var values: [[Int]]
    /// Slots drawn as a marked gap.
    var gaps: Set<Int> = []
    /// A level drawn across as a dashed line, with its label (the heartbeats a device should send a day).
    var expected: (value: Int, label: String)?
    var empty = "Nothing yet"

    /// Colours told apart also by people with the common colour-vision deficiencies (Okabe–Ito).
    static let palette = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]

    /// Marks drawn over each series' colour, in white, on an 8-pixel tile: the first series is solid.
    static let marks = [
        "", "M0 8L8 0M-2 2L2 -2M6 10L10 6", "M2 2h2v2h-2zM6 6h2v2h-2z", "M0 4h8", "M4 0v8", "M0 0L8 8M0 8L8 0", "M0 2h8M0 6h8", "M2 0v8M6 0v8",
    ]

    func fill(_ series: Int) -> String { "url(#\(id)-s\(series % Self.marks.count))" }

    var svg: String {
        let width = 720, height = 300, left = 48, bottom = 48, top = 16, legendWidth = 170
        let plotWidth = width - left - legendWidth - 16, plotHeight = height - top - bottom
        let totals = values.map { $0.reduce(0, +) }
        let maximum = max(1, totals.max() ?? 1, expected.map { $0.value + $0.value / 10 } ?? 0)
        let step = Self.gridStep(maximum)
        let scale = Double(plotHeight) / Double(((maximum + step - 1) / step) * step)
        let slot = slots.isEmpty ? 0 : plotWidth / slots.count
        let barWidth = max(2, min(48, slot * 7 / 10))
        let baseline = top + plotHeight
        var parts: [String] = [
            ##"<svg xmlns="http://www.w3.org/2000/svg" id="\##(id)" role="img" aria-labelledby="\##(id)-title \##(id)-desc" width="\##(width)" height="\##(height)" viewBox="0 0 \##(width) \##(height)">"##,
            ##"<title id="\##(id)-title">\##(HTMLText.escape(title))</title>"##,
            ##"<desc id="\##(id)-desc">\##(HTMLText.escape(description))</desc>"##,
            "<defs>",
        ]
        for (index, marks) in Self.marks.enumerated() {
            let colour = Self.palette[index % Self.palette.count]
            let over = marks.isEmpty ? "" : ##"<path d="\##(marks)" stroke="#fff" stroke-width="1.5" fill="#fff"/>"##
            parts.append(
                ##"<pattern id="\##(id)-s\##(index)" width="8" height="8" patternUnits="userSpaceOnUse"><path d="M0 0h8v8h-8z" fill="\##(colour)"/>\##(over)</pattern>"##
            )
        }
        parts.append(
            ##"<pattern id="\##(id)-gap" width="6" height="6" patternUnits="userSpaceOnUse"><path d="M0 6L6 0M0 0L6 6" stroke="#767676" stroke-width="1"/></pattern>"##
        )
        parts.append("</defs>")
        var value = 0
        while Double(value) * scale <= Double(plotHeight) + 0.5 {
            let y = baseline - Int((Double(value) * scale).rounded())
            parts.append(##"<line x1="\##(left)" y1="\##(y)" x2="\##(left + plotWidth)" y2="\##(y)" stroke="#ccc"/>"##)
            parts.append(##"<text x="\##(left - 6)" y="\##(y + 4)" text-anchor="end">\##(value)</text>"##)
            value += step
        }
        // Label every slot when they fit, else every few.
        let every = max(1, (slots.count * 72 + plotWidth - 1) / max(1, plotWidth))
        for (index, label) in slots.enumerated() {
            let x = left + index * slot + (slot - barWidth) / 2
            if gaps.contains(index) {
                parts.append(
                    ##"<rect class="gap" x="\##(x)" y="\##(top)" width="\##(barWidth)" height="\##(plotHeight)" fill="url(#\##(id)-gap)" stroke="#767676" stroke-dasharray="3 2"><title>\##(HTMLText.escape("\(label): no readings (gap)"))</title></rect>"##
                )
                parts.append(##"<text class="gap-mark" x="\##(x + barWidth / 2)" y="\##(baseline - 4)" text-anchor="middle">×</text>"##)
            }
            var y = Double(baseline)
            for (seriesIndex, count) in values[index].enumerated() where count > 0 {
                let barHeight = Double(count) * scale
                y -= barHeight
                parts.append(
                    ##"<rect x="\##(x)" y="\##(Int(y.rounded()))" width="\##(barWidth)" height="\##(max(1, Int(barHeight.rounded())))" fill="\##(fill(seriesIndex))" stroke="#1b1b1b" stroke-width="0.5"><title>\##(HTMLText.escape("\(label), \(series[seriesIndex]): \(count)"))</title></rect>"##
                )
            }
            if index % every == 0 {
                parts.append(##"<text x="\##(x + barWidth / 2)" y="\##(baseline + 18)" text-anchor="middle">\##(HTMLText.escape(label))</text>"##)
            }
        }
        parts.append(##"<line x1="\##(left)" y1="\##(baseline)" x2="\##(left + plotWidth)" y2="\##(baseline)" stroke="#1b1b1b"/>"##)
        var legend = series.indices.map { (fill: fill($0), text: series[$0], line: false) }
        if !gaps.isEmpty { legend.append((fill: "url(#\(id)-gap)", text: "no readings (gap, ×)", line: false)) }
        if let expected {
            let y = baseline - Int((Double(expected.value) * scale).rounded())
            parts.append(
                ##"<line class="expected" x1="\##(left)" y1="\##(y)" x2="\##(left + plotWidth)" y2="\##(y)" stroke="#1b1b1b" stroke-width="2" stroke-dasharray="8 4"><title>\##(HTMLText.escape(expected.label))</title></line>"##
            )
            legend.append((fill: "", text: expected.label, line: true))
        }
        for (index, entry) in legend.enumerated() {
            let y = top + 8 + index * 22
            let x = width - legendWidth
            parts.append(
                entry.line
                    ? ##"<line x1="\##(x)" y1="\##(y - 3)" x2="\##(x + 14)" y2="\##(y - 3)" stroke="#1b1b1b" stroke-width="2" stroke-dasharray="4 2"/>"##
                    : ##"<rect x="\##(x)" y="\##(y - 10)" width="14" height="14" fill="\##(entry.fill)" stroke="#1b1b1b" stroke-width="0.5"/>"##)
            parts.append(##"<text x="\##(x + 20)" y="\##(y + 2)">\##(HTMLText.escape(entry.text))</text>"##)
        }
        if slots.isEmpty || totals.allSatisfy({ $0 == 0 }) {
            parts.append(
                ##"<text x="\##(left + plotWidth / 2)" y="\##(top + plotHeight / 2)" text-anchor="middle">\##(HTMLText.escape(empty))</text>"##)
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
