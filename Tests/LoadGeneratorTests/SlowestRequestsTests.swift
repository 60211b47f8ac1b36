import Foundation
import NIOHTTP1
import Testing

@testable import CustodianLoad

/// `custodian loadgen` prints the trace ids of the slowest requests it saw (issue 29): the ten slowest of a run, each
/// with the trace id of its answer's `traceparent`, so that an operator can find it in the collector.
@Suite("Load generator: the slowest requests and their traces")
struct SlowestRequestsTests {
    static let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"

    static func request(_ milliseconds: Double, _ operation: String = "twomes/heartbeat") -> SlowRequest {
        SlowRequest(operation: operation, milliseconds: milliseconds, status: 201, trace: nil)
    }

    @Test func theTrackerKeepsTheSlowestSlowestFirstAndNoMore() {
        var tracker = SlowestRequests(capacity: 10)
        var generator = SystemRandomNumberGenerator()
        var all: [Double] = []
        for _ in 0..<2_000 {
            let milliseconds = Double(UInt16.random(in: 0..<UInt16.max, using: &generator)) / 100
            all.append(milliseconds)
            tracker.add(Self.request(milliseconds))
            #expect(tracker.requests.count <= 10)
        }
        #expect(tracker.requests.map(\.milliseconds) == Array(all.sorted(by: >).prefix(10)))
    }

    @Test func aFullTrackerAdmitsOnlyARequestSlowerThanItsFastest() {
        var tracker = SlowestRequests(capacity: 3)
        for milliseconds in [5.0, 9, 7] { tracker.add(Self.request(milliseconds)) }
        #expect(!tracker.admits(5), "as slow as the fastest kept: the first seen stays")
        #expect(!tracker.admits(1))
        #expect(tracker.admits(5.5))
        tracker.add(Self.request(5, "vault/read"))
        #expect(tracker.requests.map(\.operation).allSatisfy { $0 == "twomes/heartbeat" })
        tracker.add(Self.request(8, "vault/read"))
        #expect(tracker.requests.map(\.milliseconds) == [9, 8, 7])
        #expect(tracker.requests[1].operation == "vault/read")
        #expect(!SlowestRequests(capacity: 0).admits(1_000))
    }

    @Test func theTraceIsReadFromTheAnswersTraceparent() {
        let sampled = AnswerTrace(headers: ["traceparent": "00-\(Self.traceID)-00f067aa0ba902b7-01", "X-Request-Id": Self.traceID])
        #expect(sampled == AnswerTrace(traceID: Self.traceID, sampled: true, requestID: Self.traceID))
        let unsampled = AnswerTrace(headers: ["traceparent": "00-\(Self.traceID)-00f067aa0ba902b7-00", "x-request-id": "my-own-id"])
        #expect(unsampled == AnswerTrace(traceID: Self.traceID, sampled: false, requestID: "my-own-id"))
        // What W3C Trace Context does not allow is no trace: a zero trace id, a wrong length, another version.
        for invalid in [
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "00-\(Self.traceID)-00f067aa0ba902b7",
            "ff-\(Self.traceID)-00f067aa0ba902b7-01",
            "00-\(Self.traceID.uppercased().replacingOccurrences(of: "A", with: "Z"))-00f067aa0ba902b7-01", "",
        ] {
            let trace = AnswerTrace(headers: ["traceparent": invalid])
            #expect(trace.traceID == nil && trace.sampled == nil, "\(invalid)")
        }
        #expect(AnswerTrace(headers: [:]) == AnswerTrace(traceID: nil, sampled: nil, requestID: nil))
        #expect(AnswerTrace(headers: ["X-Request-Id": String(repeating: "x", count: 10_000)]).requestID?.count == 128)
    }

    @Test func theRecorderGivesTheSlowestTheirTracesAndCountsThoseWithout() {
        let recorder = Recorder()
        let answer: HTTPHeaders = ["traceparent": "00-\(Self.traceID)-00f067aa0ba902b7-01"]
        recorder.record(.answered("sealed-batch", 201), scenario: "vault", latency: .milliseconds(40), answer: answer)
        recorder.record(.answered("heartbeat", 201), scenario: "twomes", latency: .milliseconds(70), answer: [:])
        recorder.record(.failed("upload", CancellationError()), scenario: "opensense", latency: .milliseconds(90))
        let slowest = recorder.snapshot().slowest.requests
        #expect(slowest.map(\.operation) == ["opensense/upload", "twomes/heartbeat", "vault/sealed-batch"])
        #expect(slowest.map(\.status) == [nil, 201, 201])
        #expect(slowest.map(\.milliseconds) == [90, 70, 40])
        #expect(slowest.map { $0.trace?.traceID } == [nil, nil, Self.traceID])
    }

    /// The JSON report has every key in every entry, null where there is nothing, as the docs show it.
    @Test func theReportsSlowestHaveEveryKeyAndNullWhenThereIsNoTrace() throws {
        let requests = [
            SlowRequest(
                operation: "lemon/submission", milliseconds: 812.5, status: 200,
                trace: AnswerTrace(traceID: Self.traceID, sampled: false, requestID: Self.traceID)),
            SlowRequest(operation: "geotag/store", milliseconds: 3.25, status: nil, trace: nil),
        ]
        let data = try JSONEncoder().encode(requests)
        let objects = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        #expect(objects[0]["operation"] as? String == "lemon/submission")
        #expect(objects[0]["ms"] as? Double == 812.5)
        #expect(objects[0]["status"] as? Int == 200)
        #expect(objects[0]["trace_id"] as? String == Self.traceID)
        #expect(objects[0]["sampled"] as? Bool == false)
        #expect(objects[0]["request_id"] as? String == Self.traceID)
        for key in ["status", "trace_id", "sampled", "request_id"] {
            #expect(objects[1][key] is NSNull, "\(key) is \(String(describing: objects[1][key]))")
        }
        #expect(try JSONDecoder().decode([SlowRequest].self, from: data) == requests)
    }

    /// Each operation's answer is its own, even with many in flight on shared clients: a scenario's clients note every
    /// answer's headers, and the runner gives each operation its own place for them.
    @Test func eachOperationGetsTheTraceOfItsOwnAnswer() async throws {
        struct Traced: Scenario {
            let name = "traced"
            func operation(_ number: Int, client: LoadClient) async -> OperationOutcome {
                AnswerTrace.note(["traceparent": "00-\(Self.traceID(number))-00f067aa0ba902b7-01"])
                try? await Task.sleep(for: .milliseconds(number % 5))
                return .answered("n\(number)", 200)
            }
            func verify(client: LoadClient) async throws -> Verification {
                Verification(scenario: name, acknowledged: 0, found: 0, lost: 0, duplicated: 0)
            }
            static func traceID(_ number: Int) -> String { String(repeating: "0", count: 24) + String(format: "%08x", number + 1) }
        }
        // An answer noted outside any operation (the set-up's) goes nowhere.
        AnswerTrace.note(["traceparent": "00-\(Self.traceID)-00f067aa0ba902b7-01"])
        let client = try LoadClient.make(baseURL: "http://127.0.0.1:9", adminToken: "", caFile: nil, insecure: false, connections: 1)
        let plan = LoadPlan(model: .closed(concurrency: 8), duration: .milliseconds(300), scenarios: [], clients: 1, verify: false)
        let report = try await LoadRunner.run(plan, prepared: [(Traced(), 1)], client: client, output: .quiet)
        await client.shutdown()
        #expect(report.total.operations > 10)
        #expect(report.slowest.count == 10)
        #expect(report.slowest.map(\.milliseconds) == report.slowest.map(\.milliseconds).sorted(by: >))
        for request in report.slowest {
            let number = try #require(Int(request.operation.dropFirst("traced/n".count)))
            #expect(request.trace?.traceID == Traced.traceID(number), "\(request.operation)")
        }
    }

    @Test func theTableListsTheSlowestAfterTheFigures() throws {
        let plan = LoadPlan(model: .closed(concurrency: 1), duration: .seconds(1), scenarios: [(.vault, 1)], clients: 1, verify: false)
        let recorder = Recorder()
        recorder.record(.answered("sealed-batch", 201), scenario: "vault", latency: .milliseconds(5), answer: [:])
        let report = LoadReport(
            server: "http://127.0.0.1", plan: plan, elapsedSeconds: 1, total: LatencySummary(recorder.snapshot().all, seconds: 1),
            scenarios: [:], verification: [], memory: [:],
            slowest: [
                SlowRequest(
                    operation: "vault/sealed-batch", milliseconds: 812.31, status: 201,
                    trace: AnswerTrace(traceID: Self.traceID, sampled: true, requestID: Self.traceID)),
                SlowRequest(
                    operation: "lemon/submission", milliseconds: 90, status: 200,
                    trace: AnswerTrace(traceID: Self.traceID, sampled: false, requestID: "client-id")),
                SlowRequest(operation: "geotag/store", milliseconds: 3, status: nil, trace: nil),
            ])
        let lines = report.table.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: "slowest requests"))
        #expect(start > lines.firstIndex { $0.hasPrefix("answers") }!, "after the figures")
        #expect(lines[start + 1].contains("ms") && lines[start + 1].contains("trace id"))
        #expect(lines[start + 2] == "  812.3  vault/sealed-batch     201  \(Self.traceID)")
        #expect(lines[start + 3] == "   90.0  lemon/submission       200  \(Self.traceID) (not recorded)  request id client-id")
        #expect(lines[start + 4] == "    3.0  geotag/store          none  none")
    }
}
