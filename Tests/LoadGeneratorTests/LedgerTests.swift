import Testing
import Foundation
@testable import CustodianLoad

@Suite("Load generator: read-back, mix, times")
struct LedgerTests {
    @Test func aWriteNotFoundIsLostAndOneFoundTwiceIsDuplicated() {
        let ledger = Ledger<String>()
        ledger.record(["a", "b", "c", "d"])
        let result = ledger.verification("test", found: ["a", "b", "b", "x"])
        #expect(result.acknowledged == 4)
        #expect(result.found == 2)
        #expect(result.lost == 2, "c and d")
        #expect(result.duplicated == 1, "b")
    }

    @Test func theMixKeepsItsProportionsAndInterleaves() {
        let schedule = LoadRunner.weightedSchedule([40, 15, 15, 20, 10])
        #expect(schedule.count == 100)
        #expect([0, 1, 2, 3, 4].map { index in schedule.filter { $0 == index }.count } == [40, 15, 15, 20, 10])
        // No long runs of one scenario: the heaviest never comes more than twice in a row.
        let longestRun = schedule.indices.dropFirst().reduce((1, 1)) { state, index in
            let run = schedule[index] == schedule[index - 1] ? state.0 + 1 : 1
            return (run, max(state.1, run))
        }.1
        #expect(longestRun <= 2)
        #expect(LoadRunner.weightedSchedule([1]) == [0])
    }

    @Test func exportTimesAreReadInEveryFormTheExportsWrite() {
        #expect(ExportTime.seconds("2020-09-13T12:26:40+00:00") == 1_600_000_000)
        #expect(ExportTime.seconds("2020-03-01T00:00:05") == 1_583_020_805)
        #expect(ExportTime.seconds("2020-03-01T00:00:05.000000") == 1_583_020_805)
        #expect(ExportTime.seconds("2020-03-01T00:00:05Z") == 1_583_020_805)
        #expect(ExportTime.seconds("yesterday") == nil)
    }
}

@Suite("Load generator: when clients saw errors")
struct ErrorTimelineTests {
    struct Refused: Error {}

    /// A fault test compares these seconds with when it made the fault: only errors land in them, each in the second
    /// it ended, whether the server answered (a 503) or not (no connection).
    @Test func errorsAreCountedByTheSecondTheyEnded() {
        let recorder = Recorder()
        let before = Int(Date().timeIntervalSince1970)
        recorder.record(.answered("upload", 200), scenario: "twomes", latency: .milliseconds(3))
        recorder.record(.answered("upload", 503), scenario: "twomes", latency: .milliseconds(3))
        recorder.record(.failed("upload", Refused()), scenario: "vault", latency: .milliseconds(3))
        recorder.record(.answered("refusal", 401, expected: 401), scenario: "vault", latency: .milliseconds(3))
        let after = Int(Date().timeIntervalSince1970)
        let summary = LatencySummary(recorder.snapshot().all, seconds: 1)
        #expect(summary.errors == 2)
        #expect(summary.errorsBySecond.values.reduce(0, +) == 2)
        for second in summary.errorsBySecond.keys.compactMap(Int.init) {
            #expect((before...after).contains(second))
        }
        #expect(LatencySummary(recorder.snapshot().byScenario["twomes"]!, seconds: 1).errorsBySecond.values.reduce(0, +) == 1)
    }
}
