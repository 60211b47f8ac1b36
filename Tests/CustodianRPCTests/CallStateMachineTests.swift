import Testing
@testable import CustodianRPC

/// The client's policy for one call, without sockets: which replica next, whether the call may be sent again, and when
/// to give up.
@Suite("One call's way through the replicas")
struct CallStateMachineTests {
    final class Replica: CustomStringConvertible {
        let name: String
        var isAvailable: Bool
        var inFlight: Int

        init(_ name: String, available: Bool = true, inFlight: Int = 0) {
            self.name = name
            self.isAvailable = available
            self.inFlight = inFlight
        }

        var description: String { name }
    }

    typealias Machine = CallStateMachine<Replica>

    /// The replica an action sends to, or what else it does, as text: `a`, `list again`, `fail …`.
    static func step(_ action: Machine.Action) -> String {
        switch action {
        case .send(let replica): replica.name
        case .listAgain: "list again"
        case .fail(let failure): "fail \(failure)"
        }
    }

    static let refused = RPCTransportError.connectFailed(endpoint: "unix:/a.sock", reason: "refused")
    static let notSent = RPCTransportError.notSent(endpoint: "unix:/b.sock")
    static let closed = RPCTransportError.connectionClosed(endpoint: "unix:/a.sock")
    static let malformed = RPCTransportError.malformedResponse("not JSON")
    static let timedOut = RPCTransportError.deadlineExceeded(endpoint: "unix:/a.sock")

    @Test(arguments: [RPCRetry.safe, .unsafe])
    func aCallThatSurelyDidNotRunGoesToTheNextReplicaThenToNewOnesThenFails(retry: RPCRetry) {
        let (a, b, c) = (Replica("a"), Replica("b"), Replica("c"))
        var machine = Machine(retry: retry, replicas: [a, b])
        #expect(Self.step(machine.start()) == "a")
        #expect(Self.step(machine.failed(Self.refused, deadlinePassed: false)) == "b")
        #expect(Self.step(machine.failed(Self.notSent, deadlinePassed: true)) == "list again")
        // The listing again finds a replica that replaced one (c) beside those already tried.
        #expect(Self.step(machine.listed([b, c, a])) == "c")
        let last = machine.answered(.unavailable("the service is shutting down", reason: "shutting_down"))
        #expect(Self.step(last) == "fail \(Machine.Failure.noReplicaAnswered(lastProblem: "replica is shutting down"))")
    }

    @Test func aReplicaShuttingDownRefusedTheCallSoAnotherMayTakeItWhateverTheMethod() {
        var machine = Machine(retry: .unsafe, replicas: [Replica("a"), Replica("b")])
        _ = machine.start()
        #expect(Self.step(machine.answered(.unavailable("the service is shutting down", reason: "shutting_down"))) == "b")
    }

    @Test func anyOtherErrorIsTheAnswer() {
        var machine = Machine(retry: .safe, replicas: [Replica("a"), Replica("b")])
        _ = machine.start()
        let error = RPCError.unavailable("down", reason: "database_unavailable", retryAfter: 2)
        guard case .fail(.answered(let answered)) = machine.answered(error) else {
            Issue.record("the error was not the answer")
            return
        }
        #expect(answered == error)
    }

    @Test(arguments: [CallStateMachineTests.closed, CallStateMachineTests.malformed])
    func aCallThatMayHaveRunIsSentAgainOnlyWhenSafeAndInTime(error: RPCTransportError) {
        var unsafe = Machine(retry: .unsafe, replicas: [Replica("a"), Replica("b")])
        _ = unsafe.start()
        #expect(Self.step(unsafe.failed(error, deadlinePassed: false)) == "fail \(Machine.Failure.connectionLost(error.description))")

        var safe = Machine(retry: .safe, replicas: [Replica("a"), Replica("b")])
        _ = safe.start()
        #expect(Self.step(safe.failed(error, deadlinePassed: false)) == "b")
        #expect(Self.step(safe.failed(error, deadlinePassed: true)) == "fail \(Machine.Failure.connectionLost(error.description))")
    }

    @Test(arguments: [RPCRetry.safe, .unsafe])
    func aReplicaThatHadTheCallAtTheDeadlineEndsIt(retry: RPCRetry) {
        var machine = Machine(retry: retry, replicas: [Replica("a"), Replica("b")])
        _ = machine.start()
        #expect(Self.step(machine.failed(Self.timedOut, deadlinePassed: false)) == "fail \(Machine.Failure.deadlineExceeded)")
    }

    @Test func noReplicaAtAllIsListedOnceMoreThenFails() {
        var machine = Machine(retry: .safe, replicas: [])
        #expect(Self.step(machine.start()) == "list again")
        #expect(Self.step(machine.listed([])) == "fail \(Machine.Failure.noReplicaAnswered(lastProblem: "no replica answered"))")
    }

    @Test func theLastProblemIsTheOneReported() {
        var machine = Machine(retry: .safe, replicas: [Replica("a"), Replica("b")])
        _ = machine.start()
        _ = machine.failed(Self.closed, deadlinePassed: false)
        _ = machine.failed(Self.refused, deadlinePassed: false)
        #expect(Self.step(machine.listed([])) == "fail \(Machine.Failure.noReplicaAnswered(lastProblem: Self.refused.description))")
    }

    static func order(_ replicas: [Replica]) -> [String] {
        var random = SystemRandomNumberGenerator()
        return Machine.order(replicas, isAvailable: \.isAvailable, inFlight: \.inFlight, using: &random).map(\.name)
    }

    @Test func oneReplicaIsTheOnlyCandidateEvenWhenLeftAlone() {
        #expect(Self.order([Replica("a", available: false)]) == ["a"])
    }

    @Test func theFirstIsTheLessBusyOfTwoAvailableOnesAndThoseLeftAloneComeLast() {
        let replicas = [Replica("idle", inFlight: 0), Replica("down", available: false), Replica("busy", inFlight: 9), Replica("some", inFlight: 3)]
        var firsts: Set<String> = []
        for _ in 0..<200 {
            let order = Self.order(replicas)
            #expect(order.count == 4 && Set(order) == ["idle", "down", "busy", "some"], "each once")
            #expect(order.last == "down", "a replica left alone is a last resort")
            // Two distinct picks: the busiest of three is never the less busy one.
            #expect(order.first != "busy")
            firsts.insert(order[0])
        }
        // Not always the idlest: a herd on the one that looked idlest a moment ago is what two choices avoid. (The idle one
        // comes first when picked, two times in three; never seeing either in 200 orders has odds below 1e-35.)
        #expect(firsts == ["idle", "some"])
    }

    @Test func whenNoneIsAvailableAllAreTriedAnyway() {
        let order = Self.order([Replica("a", available: false), Replica("b", available: false)])
        #expect(order == ["a", "b"])
    }
}
