import CustodianRPC
import Foundation

/// A run's figures: the final table on the terminal, and `--report FILE` as JSON.
public struct LoadReport: Sendable, Codable {
    public var server: String
    public var scenario: [String: Int]
    public var model: String
    public var rate: Double?
    public var rampUpSeconds: Double?
    public var concurrency: Int?
    public var durationSeconds: Double
    public var elapsedSeconds: Double
    public var total: LatencySummary
    public var scenarios: [String: LatencySummary]
    public var verification: [Verification]
    public var memory: [String: MemoryReading]
    /// The ten slowest requests, slowest first, with their answers' trace ids.
    public var slowest: [SlowRequest]

    public var lost: Int { verification.map(\.lost).reduce(0, +) }
    public var duplicated: Int { verification.map(\.duplicated).reduce(0, +) }

    init(
        server: String, plan: LoadPlan, elapsedSeconds: Double, total: LatencySummary, scenarios: [String: LatencySummary],
        verification: [Verification], memory: [String: MemoryReading], slowest: [SlowRequest]
    ) {
        self.server = server
        self.scenario = Dictionary(plan.scenarios.map { ($0.0.rawValue, $0.1) }, uniquingKeysWith: +)
        switch plan.model {
        case .open(let rate, let rampUp):
            model = "open"
            self.rate = rate
            rampUpSeconds = rampUp.seconds
        case .closed(let concurrency):
            model = "closed"
            self.concurrency = concurrency
        }
        durationSeconds = plan.duration.seconds
        self.elapsedSeconds = elapsedSeconds
        self.total = total
        self.scenarios = scenarios
        self.verification = verification
        self.memory = memory
        self.slowest = slowest
    }

    /// The final table.
    public var table: String {
        func cells(_ values: [String]) -> String {
            let widths = [10, 9, 9, 9, 9, 9, 9, 10, 7]
            return zip(values, widths).enumerated().map { index, pair in
                let (value, width) = pair
                let padding = String(repeating: " ", count: max(0, width - value.count))
                return index == 0 ? value + padding : padding + value
            }.joined(separator: " ")
        }
        func row(_ name: String, _ summary: LatencySummary) -> String {
            cells(
                [name, String(summary.operations), String(format: "%.1f", summary.throughput)]
                    + [summary.p50Milliseconds, summary.p90Milliseconds, summary.p99Milliseconds, summary.p999Milliseconds, summary.maxMilliseconds]
                    .map { String(format: "%.2f", $0) }
                    + [String(summary.errors)])
        }
        var lines = [cells(["scenario", "requests", "per s", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms", "errors"])]
        for name in scenarios.keys.sorted() { lines.append(row(name, scenarios[name]!)) }
        if scenarios.count > 1 { lines.append(row("all", total)) }
        let statuses = total.statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        lines.append("answers    \(statuses.isEmpty ? "none" : statuses)")
        for (failure, count) in total.failures.sorted(by: { $0.value > $1.value }).prefix(5) {
            lines.append("no answer  \(count)× \(failure)")
        }
        for check in verification {
            lines.append(
                "read-back  \(check.scenario): \(check.acknowledged) acknowledged, \(check.found) found, \(check.lost) lost, \(check.duplicated) duplicated"
                    + (check.notes.isEmpty ? "" : " (\(check.notes.joined(separator: "; ")))"))
        }
        for name in memory.keys.sorted() {
            let reading = memory[name]!
            let padded = name + String(repeating: " ", count: max(0, 10 - name.count))
            lines.append(
                "memory     \(padded) RSS "
                    + String(
                        format: "%7.1f MiB before the load, %7.1f MiB once warm, %7.1f MiB when it stopped",
                        Double(reading.startKiB) / 1024, Double(reading.warmKiB) / 1024, Double(reading.endKiB) / 1024))
        }
        if !slowest.isEmpty { lines += [""] + slowestLines }
        return lines.joined(separator: "\n")
    }

    /// The slowest requests, one a line: what to look up in the collector (docs/operations.md, "Tracing").
    var slowestLines: [String] {
        let width = max(9, slowest.map(\.operation.count).max() ?? 0)
        func padded(_ text: String, _ count: Int) -> String { text + String(repeating: " ", count: max(0, count - text.count)) }
        var lines = ["slowest requests", "     ms  \(padded("operation", width))  status  trace id"]
        for request in slowest {
            let status = request.status.map(String.init) ?? "none"
            var trace = request.trace?.traceID ?? "none"
            if request.trace?.sampled == false { trace += " (not recorded)" }
            // The gateway answers the trace id as the request id unless the client sent one of its own.
            if let requestID = request.trace?.requestID, requestID != request.trace?.traceID { trace += "  request id \(requestID)" }
            lines.append(
                String(format: "%7.1f  ", request.milliseconds) + padded(request.operation, width) + "  "
                    + String(repeating: " ", count: max(0, 6 - status.count)) + status + "  " + trace)
        }
        return lines
    }

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }
}

public struct MemoryReading: Sendable, Codable, Equatable {
    /// Before the load (after the set-up).
    public var startKiB: Int
    /// Once the load was warm: after the ramp-up, or a tenth of the run.
    public var warmKiB: Int
    public var endKiB: Int
}

/// Resident memory of the platform's processes, from /proc, for "memory stays flat".
public enum ProcessMemory {
    /// `VmRSS` in KiB of each named process that exists.
    static func read(_ processes: [String: Int32]) -> [String: Int] {
        var readings: [String: Int] = [:]
        for (name, pid) in processes {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
                let kib = line.split(separator: " ").compactMap({ Int($0) }).first
            else { continue }
            readings[name] = kib
        }
        return readings
    }

    static func compare(_ start: [String: Int], warm: [String: Int], end: [String: Int]) -> [String: MemoryReading] {
        var readings: [String: MemoryReading] = [:]
        for (name, kib) in start { readings[name] = MemoryReading(startKiB: kib, warmKiB: warm[name] ?? 0, endKiB: end[name] ?? 0) }
        return readings
    }

    /// The processes `custodian up` runs from `dataDirectory` (`pids/<name>.pid`).
    public static func platformProcesses(dataDirectory: String) -> [String: Int32] {
        let directory = dataDirectory + "/pids"
        var processes: [String: Int32] = [:]
        for file in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where file.hasSuffix(".pid") {
            if let text = try? String(contentsOfFile: "\(directory)/\(file)", encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                processes[String(file.dropLast(4))] = pid
            }
        }
        if let postmaster = try? String(contentsOfFile: dataDirectory + "/postgres/postmaster.pid", encoding: .utf8),
            let pid = postmaster.split(separator: "\n").first.flatMap({ Int32($0) })
        {
            processes["postgres"] = pid
        }
        return processes
    }
}
