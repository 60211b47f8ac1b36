import Foundation
import Histogram
import NIOHTTP1
import Synchronization

/// What the operations of a run did: latencies in HdrHistograms (microseconds, 1 µs to 10 min, three significant
/// digits), answers by status, failures without an answer, per scenario and in all; and the slowest requests, with
/// the trace ids of their answers.
public final class Recorder: Sendable {
    struct Tally {
        var latencies = Histogram<UInt64>(highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
        var statuses: [Int: Int] = [:]
        var failures: [String: Int] = [:]
        var operations: [String: Int] = [:]
        var count = 0
        var errors = 0
        /// Errors by the Unix second they ended in, so that a fault test can tell when clients saw them.
        var errorsBySecond: [Int: Int] = [:]

        mutating func record(_ outcome: OperationOutcome, microseconds: UInt64) {
            _ = latencies.record(min(microseconds, 600_000_000))
            count += 1
            operations[outcome.kind, default: 0] += 1
            if let status = outcome.status {
                statuses[status, default: 0] += 1
                if outcome.succeeded { return }
            } else {
                failures[outcome.failure ?? "no answer", default: 0] += 1
            }
            errors += 1
            errorsBySecond[Int(Date().timeIntervalSince1970), default: 0] += 1
        }

        /// Another tally's figures (another connection's), added to these.
        mutating func add(_ other: Tally) {
            latencies.add(other.latencies)
            count += other.count
            errors += other.errors
            for (status, number) in other.statuses { statuses[status, default: 0] += number }
            for (failure, number) in other.failures { failures[failure, default: 0] += number }
            for (kind, number) in other.operations { operations[kind, default: 0] += number }
            for (second, number) in other.errorsBySecond { errorsBySecond[second, default: 0] += number }
        }
    }

    struct State {
        var all = Tally()
        var byScenario: [String: Tally] = [:]
        var slowest = SlowestRequests()
    }

    private let state = Mutex(State())

    public init() {}

    /// `answer`: the headers of the answer the operation counted, if it had one.
    func record(_ outcome: OperationOutcome, scenario: String, latency: Duration, answer: HTTPHeaders? = nil) {
        let (seconds, attoseconds) = latency.components
        let microseconds = UInt64(max(0, seconds)) * 1_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000_000)
        let milliseconds = Double(microseconds) / 1000
        state.withLock { state in
            state.all.record(outcome, microseconds: microseconds)
            state.byScenario[scenario, default: Tally()].record(outcome, microseconds: microseconds)
            if state.slowest.admits(milliseconds) {
                state.slowest.add(
                    SlowRequest(
                        operation: "\(scenario)/\(outcome.kind)", milliseconds: milliseconds, status: outcome.status,
                        trace: answer.map(AnswerTrace.init(headers:))))
            }
        }
    }

    /// The figures so far, for the progress line and the final report.
    func snapshot() -> State {
        state.withLock { $0 }
    }
}

/// One row of the report: a scenario's or the whole run's figures.
public struct LatencySummary: Sendable, Codable, Equatable {
    public var operations: Int
    public var throughput: Double
    public var errors: Int
    public var p50Milliseconds: Double
    public var p90Milliseconds: Double
    public var p99Milliseconds: Double
    public var p999Milliseconds: Double
    public var maxMilliseconds: Double
    public var statuses: [String: Int]
    public var failures: [String: Int]
    public var operationsByKind: [String: Int]
    /// Errors (statuses that are not a success, and failures without an answer) by the Unix second they ended in.
    public var errorsBySecond: [String: Int]

    init(_ tally: Recorder.Tally, seconds: Double) {
        func ms(_ percentile: Double) -> Double { Double(tally.latencies.valueAtPercentile(percentile)) / 1000 }
        operations = tally.count
        throughput = seconds > 0 ? Double(tally.count) / seconds : 0
        errors = tally.errors
        p50Milliseconds = tally.count > 0 ? ms(50) : 0
        p90Milliseconds = tally.count > 0 ? ms(90) : 0
        p99Milliseconds = tally.count > 0 ? ms(99) : 0
        p999Milliseconds = tally.count > 0 ? ms(99.9) : 0
        maxMilliseconds = tally.count > 0 ? Double(tally.latencies.max) / 1000 : 0
        statuses = Dictionary(uniqueKeysWithValues: tally.statuses.map { (String($0.key), $0.value) })
        failures = tally.failures
        operationsByKind = tally.operations
        errorsBySecond = Dictionary(uniqueKeysWithValues: tally.errorsBySecond.map { (String($0.key), $0.value) })
    }
}
