import CustodianLoad
import Testing

@testable import CustodianCommands

/// `custodian loadgen` and `custodian bench`: durations as load tools take them, the load the options describe, and
/// the values refused before any request is sent.
@Suite("loadgen and bench options")
struct LoadOptionTests {
    @Test func durationsTakeAUnitOrABareNumberOfSeconds() {
        #expect(CommandLineDuration.parse("30s") == .seconds(30))
        #expect(CommandLineDuration.parse("10m") == .seconds(600))
        #expect(CommandLineDuration.parse("500ms") == .milliseconds(500))
        #expect(CommandLineDuration.parse("60") == .seconds(60))
        #expect(CommandLineDuration.parse("1.5") == .milliseconds(1500))
        for wrong in ["", "ten", "10 s", "-5", "-5s", "5x"] {
            #expect(CommandLineDuration.parse(wrong) == nil, "\(wrong)")
        }
    }

    @Test func theDefaultsAreAClosedMixedLoadOfThirtySeconds() throws {
        let plan = try Loadgen.parse([]).plan()
        #expect(plan.model == .closed(concurrency: 8))
        #expect(plan.duration == .seconds(30))
        #expect(plan.scenarios.map { $0.0 } == [.twomes, .opensense, .vault, .lemon, .geotag])
        #expect(plan.scenarios.map { $0.1 } == [40, 15, 15, 20, 10])
        #expect(plan.clients == 32)
        #expect(plan.verify)
    }

    @Test func aRateMakesTheLoadOpenWithItsRampUp() throws {
        let plan = try Loadgen.parse([
            "--scenario", "vault", "--rate", "200", "--ramp-up", "10s", "--duration", "2m", "--clients", "4", "--no-verify",
        ]).plan()
        #expect(plan.model == .open(rate: 200, rampUp: .seconds(10)))
        #expect(plan.duration == .seconds(120))
        #expect(plan.scenarios.map { $0.0 } == [.vault])
        #expect(plan.clients == 4)
        #expect(!plan.verify)
    }

    @Test func wrongLoadOptionsAreRefusedBeforeAnyRequest() async {
        let refusals: [([String], String)] = [
            (["--scenario", "printers"], "--scenario must be one of twomes, opensense, vault, lemon, geotag or mixed, not 'printers'"),
            (["--duration", "0s"], "--duration must be a duration such as 30s, 10m or 60 (seconds), not '0s'"),
            (["--duration", "soon"], "--duration must be a duration such as 30s, 10m or 60 (seconds), not 'soon'"),
            (["--ramp-up", "slowly"], "--ramp-up must be a duration such as 5s, not 'slowly'"),
            (["--clients", "0"], "--clients must be from 1 to 10000"),
            (["--clients", "10001"], "--clients must be from 1 to 10000"),
            (["--rate", "0"], "--rate must be more than 0"),
            (["--concurrency", "0"], "--concurrency must be from 1 to 10000"),
        ]
        for (arguments, message) in refusals {
            #expect(await failure(["loadgen"] + arguments) == message, "\(arguments)")
        }
    }

    @Test func benchRefusesADurationOfNothing() async {
        #expect(await failure(["bench", "--duration", "0"]) == "--duration must be a duration such as 10s or 10 (seconds), not '0'")
        #expect(
            await failure(["bench", "ingestion", "--duration", "a while"])
                == "--duration must be a duration such as 10s or 10 (seconds), not 'a while'")
    }
}
