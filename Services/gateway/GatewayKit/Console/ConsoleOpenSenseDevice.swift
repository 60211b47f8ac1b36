import CustodianContracts
import Foundation
import Hummingbird

/// An OpenSense device's page: its registration, its last upload, and its batches on each UTC day of the last 30, days
/// without any shown as gaps.
struct OpenSenseDeviceView: ConsoleView {
    var device_id: String
    var registered_at: String
    var last_upload: String
    var from: String
    var to: String
    /// `12 batches in 30 days, 3 days without any`.
    var summary: String
    /// Every day from `from` to `to`, oldest first, with its count (0 on a day without batches): what a chart of the days draws.
    var days: [Day]
    /// The same days drawn (``DailyChart``), gaps marked.
    var chart: String
    var csrf = ""

    struct Day: Equatable {
        var date: String
        var count: Int
        /// No batch that day.
        var gap: Bool
    }
}

extension ConsoleRoutes {
    /// The console's address of a device's page.
    static func openSenseDevicePath(_ deviceID: String) -> String {
        "/console/opensense/devices/" + ConsoleText.queryEscaped(deviceID)
    }

    func openSenseDevice(_ visit: ConsoleVisit) async throws -> Response {
        let device = try await admin.call(
            DevicesMethods.opensenseDevice, OpenSenseDeviceDaysQuery(deviceID: visit.pathParameter("device_id")), for: visit)
        let days = Self.everyDay(from: device.from, to: device.to, counts: device.days.map { ($0.date, $0.batches) })
        let batches = days.reduce(0) { $0 + $1.count }
        let gaps = days.filter(\.gap).count
        let view = OpenSenseDeviceView(
            device_id: device.device_id, registered_at: ConsoleText.display(device.registered_at),
            last_upload: ConsoleText.display(device.last_upload, else: "none yet"), from: device.from, to: device.to,
            summary: "\(ConsoleText.counted(batches, "batch", plural: "batches")) in \(ConsoleText.counted(days.count, "day")), "
                + "\(ConsoleText.counted(gaps, "day")) without any",
            days: days,
            chart: DailyChart(
                id: "batches-chart", title: "Batches per day", noun: "batch", plural: "batches", from: device.from, to: device.to,
                series: [.init(name: "batches", counts: Dictionary(days.map { ($0.date, $0.count) }, uniquingKeysWith: +))]
            ).chart.svg)
        return ConsolePage(title: "OpenSense device \(device.device_id)", template: "opensense-device", view: view, section: "opensense")
            .response(csrf: visit.csrf)
    }

    /// Every UTC day from `from` to `to` (`YYYY-MM-DD`, both included, as ``DailyChart`` draws them) with its count from
    /// `counts`, 0 on the days `counts` lacks. Days that cannot be read give just the counts, in their order.
    static func everyDay(from: String, to: String, counts: [(date: String, count: Int)]) -> [OpenSenseDeviceView.Day] {
        let byDay = Dictionary(counts, uniquingKeysWith: +)
        let dates = DailyChart.dates(from: from, to: to)
        guard !dates.isEmpty else { return counts.map { .init(date: $0.date, count: $0.count, gap: $0.count == 0) } }
        return dates.map { date in
            let count = byDay[date] ?? 0
            return .init(date: date, count: count, gap: count == 0)
        }
    }
}
