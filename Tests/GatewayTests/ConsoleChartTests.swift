import Foundation
import Testing

@testable import GatewayKit

/// The per-day chart of the participant and device pages (``DailyChart`` over ``BarChart``): every day has a slot, a day
/// without readings is a marked gap, nothing is told by colour alone, and what it shows is escaped.
@Suite("Console daily chart")
struct ConsoleChartTests {
    static let chart = DailyChart(
        id: "c", title: "Readings per day", noun: "reading", from: "2026-11-28", to: "2026-12-02",
        series: [
            .init(name: "heartbeat", counts: ["2026-11-28": 144, "2026-11-29": 10, "2026-12-02": 3]),
            .init(name: "roomTemp", counts: ["2026-11-29": 5]),
        ],
        expected: 144)

    @Test func everyDayHasASlotAcrossMonths() {
        #expect(Self.chart.days == ["2026-11-28", "2026-11-29", "2026-11-30", "2026-12-01", "2026-12-02"])
        #expect(DailyChart.dates(from: "2024-02-28", to: "2024-03-01") == ["2024-02-28", "2024-02-29", "2024-03-01"])
        #expect(DailyChart.dates(from: "2026-12-02", to: "2026-11-28").isEmpty && DailyChart.dates(from: "x", to: "2026-11-28").isEmpty)
        #expect(DailyChart.dates(from: "2000-01-01", to: "2026-01-01").count == 366, "no more than a year is drawn")
    }

    @Test func aDayWithoutReadingsIsAMarkedGap() {
        #expect(Self.chart.gaps == ["2026-11-30", "2026-12-01"])
        let svg = Self.chart.chart.svg
        #expect(svg.components(separatedBy: #"<rect class="gap""#).count - 1 == 2, "a hatched band for each gap day")
        #expect(svg.components(separatedBy: #"<text class="gap-mark""#).count - 1 == 2, "and a × on the axis")
        #expect(svg.contains("<title>11-30: no readings (gap)</title>"))
        #expect(svg.contains("Gaps: 2026-11-30, 2026-12-01.</desc>"))
        let html = Self.chart.html
        #expect(html.contains(#"<tr class="gap"><th scope="row">2026-11-30 (gap)</th><td class="number">0</td><td class="number">0</td>"#))
    }

    @Test func nothingIsToldByColourAlone() {
        let svg = Self.chart.chart.svg
        // Each series is filled with a pattern of its own, and the legend shows it; every bar part names what it is.
        #expect(svg.contains(#"fill="url(#c-s0)""#) && svg.contains(#"fill="url(#c-s1)""#))
        #expect(svg.contains("<title>11-29, roomTemp: 5</title>") && svg.contains("<title>11-28, heartbeat: 144</title>"))
        #expect(BarChart.marks.count == Set(BarChart.marks).count, "no two series share a pattern")
        #expect(svg.contains(#"<line class="expected""#) && svg.contains(">expected: 144 a day</text>"))
        #expect(svg.contains(#"role="img" aria-labelledby="c-title c-desc""#))
        #expect(
            svg.contains("<desc id=\"c-desc\">162 readings from 2026-11-28 to 2026-12-02: 3 days with, 2 days without (gaps). Expected: 144 a day."))
        // The same figures as a table, with each day's share of the expected heartbeats.
        let html = Self.chart.html
        #expect(
            html.contains(
                #"<th scope="row">2026-11-28</th><td class="number">144</td><td class="number">0</td><td class="number">144</td><td class="number">100%</td>"#
            ))
        #expect(
            html.contains(
                #"<th scope="row">2026-11-29</th><td class="number">10</td><td class="number">5</td><td class="number">15</td><td class="number">10%</td>"#
            ))
    }

    @Test func whatItShowsIsEscapedAndNoStyleIsUsed() {
        let hostile = DailyChart(
            id: "h", title: "<b>t</b>", noun: "reading", from: "2026-11-28", to: "2026-11-28",
            series: [.init(name: "<script>alert(1)</script>", counts: ["2026-11-28": 1])])
        let html = hostile.html
        #expect(!html.contains("<script>") && html.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && html.contains("&lt;b&gt;t&lt;/b&gt;"))
        // The console's policy allows no inline style and no script: the chart uses neither.
        #expect(!html.contains("style=") && !html.contains("<script") && !html.contains("<style"))
        let empty = DailyChart(id: "e", title: "T", noun: "heartbeat", from: "2026-11-28", to: "2026-11-29", series: [])
        #expect(empty.chart.svg.contains("No heartbeats in these days") && empty.gaps.count == 2)
    }
}
