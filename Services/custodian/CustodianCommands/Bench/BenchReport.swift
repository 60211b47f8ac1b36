import Foundation

/// The figures of one `custodian bench` run.
struct BenchReport: Codable {
    struct SplitTax: Codable {
        var inProcessPerSecond: Double
        var gatewayPerSecond: Double
        var ratio: Double
        var inProcessP50Milliseconds: Double
        var gatewayP50Milliseconds: Double
        var addedP50Microseconds: Double
        var errors: Int
    }

    struct BatchWrites: Codable {
        var items: Int
        var batchSize: Int
        var apiItemsPerSecond: Double
        var copyItemsPerSecond: Double
        var ratio: Double
        var lost: Int
    }

    struct Ingestion: Codable {
        var connections: Int
        var measurementsPerUpload: Int
        var uploadsPerSecond: Double
        var measurementsPerSecond: Double
        var p50Milliseconds: Double
        var p99Milliseconds: Double
        var errors: Int
    }

    var server: String
    var durationSeconds: Double
    var splitTax: SplitTax?
    var batchWrites: BatchWrites?
    var ingestion: [Ingestion]?
    var ingestionLost = 0

    var errors: Int { (splitTax?.errors ?? 0) + (ingestion ?? []).map(\.errors).reduce(0, +) }
    var lost: Int { (batchWrites?.lost ?? 0) + ingestionLost }

    var table: String {
        var lines: [String] = []
        if let tax = splitTax {
            lines.append(
                "split-tax     in-process \(Int(tax.inProcessPerSecond))/s, through the gateway \(Int(tax.gatewayPerSecond))/s at 16 connections: "
                    + String(format: "%.2f×", tax.ratio) + " (target ≥ 0.5×)")
            lines.append(
                "              p50 at 1 connection: "
                    + String(
                        format: "%.3f ms in-process, %.3f ms through the gateway: +%.0f µs (target ≤ 150 µs)",
                        tax.inProcessP50Milliseconds, tax.gatewayP50Milliseconds, tax.addedP50Microseconds))
        }
        if let writes = batchWrites {
            lines.append(
                "batch-writes  \(writes.items) vault items in batches of \(writes.batchSize): "
                    + String(
                        format: "%.0f items/s through the API, %.0f/s with COPY: %.0f%% (target ≥ 50%%)",
                        writes.apiItemsPerSecond, writes.copyItemsPerSecond, writes.ratio * 100))
        }
        for row in ingestion ?? [] {
            lines.append(
                String(
                    format:
                        "ingestion     %3d connections, %3d measurement%@ an upload: %7.0f uploads/s, %8.0f measurements/s, p50 %6.2f ms, p99 %7.2f ms, %d errors",
                    row.connections, row.measurementsPerUpload, (row.measurementsPerUpload == 1 ? "" : "s") as NSString,
                    row.uploadsPerSecond, row.measurementsPerSecond, row.p50Milliseconds, row.p99Milliseconds, row.errors))
        }
        if ingestion != nil { lines.append("ingestion     read-back: \(ingestionLost) acknowledged measurements lost") }
        return lines.joined(separator: "\n")
    }
}
