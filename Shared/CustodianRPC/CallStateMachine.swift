/// One call's way through a service's replicas: which replica takes it next, whether it may be sent again, and when to
/// give up. Pure (no sockets, no clocks: postgres-nio's style), so that every branch is tested without a server;
/// ``RPCClient`` tells it what happened and does what it answers.
///
/// A call goes to the replicas in the order listed (``order(_:isAvailable:inFlight:using:)``); once none of them took
/// it, to those a fresh listing finds that the first did not (a replica that replaced one a moment ago, in a rolling
/// restart, has a socket the first listing did not see); then it fails. It is sent again only when it surely did not
/// run (it was never written to a connection, or a replica shutting down refused it), or when it may have run and its
/// method is safe to repeat (``RPCRetry``).
struct CallStateMachine<Replica: AnyObject> {
    enum Action {
        /// Send the call to this replica.
        case send(Replica)
        /// List the replicas again, and tell ``listed(_:)`` what was found.
        case listAgain
        case fail(Failure)
    }

    enum Failure: Equatable {
        /// No replica took the call; the last problem met, for the log.
        case noReplicaAnswered(lastProblem: String)
        /// The call was sent and its connection went away before the answer: it may have run, and its method is not safe
        /// to repeat (or the deadline passed).
        case connectionLost(String)
        /// A replica had the call when the deadline passed.
        case deadlineExceeded
        /// The replica's answer was an error: the caller's.
        case answered(RPCError)
    }

    private let retry: RPCRetry
    private let firstListing: [Replica]
    private var queue: ArraySlice<Replica>
    private var listedAgain = false
    private var lastProblem = "no replica answered"

    init(retry: RPCRetry, replicas: [Replica]) {
        self.retry = retry
        self.firstListing = replicas
        self.queue = replicas[...]
    }

    mutating func start() -> Action {
        next()
    }

    /// The connection to the replica failed, or the call on it did.
    mutating func failed(_ error: RPCTransportError, deadlinePassed: Bool) -> Action {
        switch error {
        case .deadlineExceeded:
            return .fail(.deadlineExceeded)
        case .connectFailed, .notSent:
            break
        case .connectionClosed, .malformedResponse:
            guard retry == .safe, !deadlinePassed else { return .fail(.connectionLost(error.description)) }
        }
        lastProblem = error.description
        return next()
    }

    /// The replica answered with an error; one shutting down refused the call before running it, so another may take it.
    mutating func answered(_ error: RPCError) -> Action {
        guard error.reason == "shutting_down" else { return .fail(.answered(error)) }
        lastProblem = "replica is shutting down"
        return next()
    }

    /// The replicas as listed again: every one of the first listing was tried by now.
    mutating func listed(_ replicas: [Replica]) -> Action {
        queue = replicas.filter { replica in !firstListing.contains { $0 === replica } }[...]
        return next()
    }

    private mutating func next() -> Action {
        if let replica = queue.popFirst() { return .send(replica) }
        guard listedAgain else {
            listedAgain = true
            return .listAgain
        }
        return .fail(.noReplicaAnswered(lastProblem: lastProblem))
    }

    /// The replicas to try in turn: first the less busy of two available ones picked at random (the power of two
    /// choices: nearly as good as asking every replica, without a herd on the one that looked idlest a moment ago),
    /// then the other available ones, then those left alone for now (a last resort beats no answer).
    static func order(
        _ replicas: [Replica], isAvailable: (Replica) -> Bool, inFlight: (Replica) -> Int,
        using random: inout some RandomNumberGenerator
    ) -> [Replica] {
        // One replica (the usual case) is the only candidate, available or not.
        guard replicas.count > 1 else { return replicas }
        var available: [Replica] = []
        var leftAlone: [Replica] = []
        for replica in replicas {
            if isAvailable(replica) { available.append(replica) } else { leftAlone.append(replica) }
        }
        if available.count >= 2 {
            let first = Int.random(in: 0..<available.count, using: &random)
            let second = (first + Int.random(in: 1..<available.count, using: &random)) % available.count
            available.swapAt(0, inFlight(available[second]) < inFlight(available[first]) ? second : first)
        }
        return available + leftAlone
    }
}
