import Foundation
import GeotagTool

/// The table `custodian geotag` ends with: one row per photo, its corrected time and position, or why it
/// was left alone.
struct SummaryTable {
    let rows: [[String]]

    init(_ plan: [PlannedPhoto]) {
        var rows = [["file", "time (UTC)", "latitude", "longitude", "altitude"]]
        for photo in plan {
            let time = photo.correctedTime.map(GeotagPlan.time) ?? "-"
            switch photo.action {
            case .tag(let tags):
                rows.append([
                    photo.name, time, Self.degrees(tags.position.latitude), Self.degrees(tags.position.longitude),
                    tags.position.altitude.map { Self.fixed($0, 1) + " m" } ?? "-",
                ])
            case .skip(let reason):
                rows.append([photo.name, time, "skipped: \(reason)"])
            }
        }
        self.rows = rows
    }

    /// Columns padded to their widest cell; a skipped row's reason runs on past the columns it spans.
    var text: String {
        let widths = (0..<5).map { column in rows.filter { $0.count == 5 || column < 2 }.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// Seven decimals: about a centimetre.
    static func degrees(_ value: Double) -> String {
        String(format: "%.7f", value)
    }

    static func fixed(_ value: Double, _ decimals: Int) -> String {
        String(format: "%.\(decimals)f", value)
    }
}
