import CustodianRPC
import Foundation
import NIOPosix
import Synchronization

/// How load arrives: at a fixed rate whatever the answers take (open: latencies are counted from when each request
/// was due, so a slow server cannot hide its queue — coordinated omission corrected), or from N clients that each
/// send the next request when the last is answered (closed).
public enum LoadModel: Sendable, Equatable {
    case open(rate: Double, rampUp: Duration)
    case closed(concurrency: Int)
}

public struct LoadPlan: Sendable {
    public var model: LoadModel
    public var duration: Duration
    /// Scenarios and their weights: one with weight 1 for a single scenario, the mix for `mixed`.
    public var scenarios: [(ScenarioKind, Int)]
    /// Simulated clients per scenario (devices, apps; users and consumers are fewer).
    public var clients: Int
    public var verify: Bool

    public init(model: LoadModel, duration: Duration, scenarios: [(ScenarioKind, Int)], clients: Int, verify: Bool) {
        self.model = model
        self.duration = duration
        self.scenarios = scenarios
        self.clients = clients
        self.verify = verify
    }
}

/// Where the run's words go: whole lines (set-up, the final table) and the live progress line.
public struct LoadOutput: Sendable {
    public var line: @Sendable (String) -> Void
    public var progress: @Sendable (String) -> Void

    public init(line: @escaping @Sendable (String) -> Void, progress: @escaping @Sendable (String) -> Void) {
        self.line = line
        self.progress = progress
    }

    /// Says nothing: a benchmark prints its own table.
    public static let quiet = LoadOutput(line: { _ in }, progress: { _ in })
}

public enum LoadRunner {
    /// Said at start when the platform's rate limits are on: the set-up alone (sign-ups and logins from one address)
    /// is more than they let through in a minute, and the load more than one token may send.
    public static let rateLimitWarning = """
        warning    the platform's rate limits are on and will refuse much of a load from one address (429): start the \
        platform with CUSTODIAN_RATE_LIMITS=off (docs/operations.md, "Rate limits")
        """

    /// Sets the scenarios up, runs the plan, reads every acknowledged write back, and reports.
    public static func run(
        _ plan: LoadPlan, client: LoadClient, output: LoadOutput,
        processes: [String: Int32] = [:]
    ) async throws -> LoadReport {
        let memoryAtStart = ProcessMemory.read(processes)
        if await client.rateLimitsEnabled() == true {
            output.line(Self.rateLimitWarning)
        }
        output.line("set-up     \(plan.scenarios.map(\.0.rawValue).joined(separator: ", ")), \(plan.clients) clients each, through the admin API")
        var prepared: [(scenario: any Scenario, weight: Int)] = []
        for (kind, weight) in plan.scenarios {
            prepared.append((try await kind.prepare(client: client, clients: plan.clients, log: output.line), weight))
        }
        return try await run(plan, prepared: prepared, client: client, output: output, processes: processes, memoryAtStart: memoryAtStart)
    }

    /// Runs the plan with scenarios set up already (a benchmark's own workloads).
    public static func run(
        _ plan: LoadPlan, prepared: [(scenario: any Scenario, weight: Int)], client: LoadClient, output: LoadOutput,
        processes: [String: Int32] = [:], memoryAtStart: [String: Int]? = nil
    ) async throws -> LoadReport {
        let memoryAtStart = memoryAtStart ?? ProcessMemory.read(processes)
        let schedule = weightedSchedule(prepared.map(\.weight))
        let scenarios = prepared.map(\.scenario)
        let slots = scenarios.map(Slot.init)
        let recorder = Recorder()

        output.line("load       \(describe(plan.model)) for \(plan.duration)")
        let started = ContinuousClock.now
        let state = RunState()
        // Memory once the load is warm (after the ramp-up, or a tenth of the run), to compare with the end: a process
        // that grows under steady load leaks.
        let warmAfter: Duration = if case .open(_, let rampUp) = plan.model { max(rampUp, plan.duration / 10) } else { plan.duration / 10 }
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { try await showProgress(recorder, started: started, state: state, output: output) }
            group.addTask {
                try await Task.sleep(until: started + warmAfter, clock: .continuous)
                state.warmMemory.withLock { $0 = ProcessMemory.read(processes) }
            }
            switch plan.model {
            case .open(let rate, let rampUp):
                try await runOpen(rate: rate, rampUp: rampUp, duration: plan.duration, started: started) { number, due in
                    group.addTask { await perform(number, due: due, slots: slots, schedule: schedule, client: client, recorder: recorder) }
                }
            case .closed(let concurrency):
                let end = started + plan.duration
                // Each client on one of the HTTP client's event loops: its requests go out on a connection of that loop and
                // their answers resume it there, without the thread hand-overs that would make the load generator measure
                // itself (they cost it more than a small request costs the platform).
                let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
                await withDiscardingTaskGroup { clients in
                    for index in 0..<concurrency {
                        clients.addTask(executorPreference: EventLoopTaskExecutor(loops[index % loops.count])) {
                            while ContinuousClock.now < end {
                                let number = state.next.wrappingAdd(1, ordering: .relaxed).oldValue
                                await perform(number, due: .now, slots: slots, schedule: schedule, client: client, recorder: recorder)
                            }
                        }
                    }
                }
            }
            // The open model's last requests are still in flight here; the group waits for them.
            state.finished.store(true, ordering: .relaxed)
        }
        let elapsed = (ContinuousClock.now - started)
        output.progress("")
        // Taken when the load stops: the read-back's exports are large answers the load itself never asks for.
        let memoryAtEnd = ProcessMemory.read(processes)

        var verifications: [Verification] = []
        if plan.verify {
            output.line("read-back  every acknowledged write, through the exports and the API")
            for scenario in scenarios { verifications.append(try await scenario.verify(client: client)) }
        }
        let snapshot = recorder.snapshot()
        let seconds = elapsed.seconds
        return LoadReport(
            server: client.baseURL, plan: plan, elapsedSeconds: seconds,
            total: LatencySummary(snapshot.all, seconds: seconds),
            scenarios: snapshot.byScenario.mapValues { LatencySummary($0, seconds: seconds) },
            verification: verifications,
            memory: ProcessMemory.compare(memoryAtStart, warm: state.warmMemory.withLock { $0 }, end: memoryAtEnd),
            slowest: snapshot.slowest.requests)
    }

    /// Operation numbers to scenarios, in proportion to their weights and interleaved (weights 2 and 1: A B A …).
    static func weightedSchedule(_ weights: [Int]) -> [Int] {
        var schedule: [Int] = []
        var credit = weights.map { _ in 0 }
        let total = weights.reduce(0, +)
        for _ in 0..<max(total, 1) {
            for index in weights.indices { credit[index] += weights[index] }
            let chosen = credit.indices.max { credit[$0] < credit[$1] } ?? 0
            credit[chosen] -= total
            schedule.append(chosen)
        }
        return schedule
    }

    /// A scenario with the count of its own operations, so that its kinds of request keep their proportions in a mix.
    final class Slot: Sendable {
        let scenario: any Scenario
        let next = Atomic<Int>(0)
        init(_ scenario: any Scenario) { self.scenario = scenario }
    }

    private static func perform(
        _ number: Int, due: ContinuousClock.Instant, slots: [Slot], schedule: [Int],
        client: LoadClient, recorder: Recorder
    ) async {
        let slot = slots[schedule[number % schedule.count]]
        let latest = AnswerTrace.Latest()
        let outcome = await AnswerTrace.$latest.withValue(latest) {
            await slot.scenario.operation(slot.next.wrappingAdd(1, ordering: .relaxed).oldValue, client: client)
        }
        recorder.record(outcome, scenario: slot.scenario.name, latency: ContinuousClock.now - due, answer: latest.answer)
    }

    /// Calls `launch` with each operation's number at the moment it is due: `rate` a second after a linear ramp.
    static func runOpen(
        rate: Double, rampUp: Duration, duration: Duration, started: ContinuousClock.Instant,
        launch: (Int, ContinuousClock.Instant) -> Void
    ) async throws {
        let end = started + duration
        let rampSeconds = rampUp.seconds
        var due = started
        var number = 0
        while due < end {
            if due > .now { try await Task.sleep(until: due, clock: .continuous) }
            launch(number, due)
            number += 1
            let elapsed = due - started
            let elapsedSeconds = elapsed.seconds
            let current = rampSeconds > 0 ? rate * min(1, max(0.05, elapsedSeconds / rampSeconds)) : rate
            due = due + .nanoseconds(Int64(1e9 / current))
        }
    }

    /// Whether the load is over, and the closed model's operation count.
    final class RunState: Sendable {
        let finished = Atomic<Bool>(false)
        let next = Atomic<Int>(0)
        let warmMemory = Mutex<[String: Int]>([:])
    }

    private static func showProgress(
        _ recorder: Recorder, started: ContinuousClock.Instant, state: RunState,
        output: LoadOutput
    ) async throws {
        var lastCount = 0
        while !state.finished.load(ordering: .relaxed) {
            try await Task.sleep(for: .seconds(1))
            let tally = recorder.snapshot().all
            let elapsed = (ContinuousClock.now - started).components.seconds
            let p50 = Double(tally.latencies.valueAtPercentile(50)) / 1000
            let p99 = Double(tally.latencies.valueAtPercentile(99)) / 1000
            output.progress(
                String(
                    format: "%4lds  %6d ops  %7.1f/s  p50 %7.2f ms  p99 %8.2f ms  errors %d",
                    elapsed, tally.count, Double(tally.count - lastCount), p50, p99, tally.errors))
            lastCount = tally.count
        }
    }

    static func describe(_ model: LoadModel) -> String {
        switch model {
        case .open(let rate, let rampUp): "open model, \(rate.formatted()) requests/s after a \(rampUp) ramp-up"
        case .closed(let concurrency): "closed model, \(concurrency) concurrent clients"
        }
    }
}
