import Foundation
import NIOCore
import NIOPosix
import Testing
@testable import CustodianRPC

/// How the client spreads calls over a service's replicas and what it does when one of them fails.
@Suite("RPC client: replicas")
struct ReplicaBalancingTests {
    /// A replica that accepts connections and then does what `handler` does with them (nothing, without one).
    final class FaultyReplica: Sendable {
        let channel: any Channel
        private let accepted: StartedCalls
        /// Connections it accepted.
        var accepts: Int { accepted.value }

        init(path: String, handler: @escaping @Sendable () -> (any ChannelHandler & Sendable)?) async throws {
            let accepted = StartedCalls()
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .childChannelInitializer { channel in
                    accepted.record()
                    return channel.eventLoop.makeCompletedFuture {
                        if let handler = handler() { try channel.pipeline.syncOperations.addHandler(handler) }
                    }
                }
                .bind(unixDomainSocketPath: path).get()
            self.accepted = accepted
        }
    }

    /// Counts what it reads and answers nothing; counts the connections the other side closed too.
    final class CountReads: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let reads: StartedCalls
        let closes: StartedCalls?
        init(_ reads: StartedCalls, closes: StartedCalls? = nil) {
            self.reads = reads
            self.closes = closes
        }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { reads.record() }
        func channelInactive(context: ChannelHandlerContext) {
            closes?.record()
            context.fireChannelInactive()
        }
    }

    @Test func aCallGoesToTheReplicaWithFewerCallsInFlight() async throws {
        let directory = try temporarySocketDirectory()
        let gate = Gate()
        let open = Gate()
        open.openIt()
        let (busy, idle) = (StartedCalls(), StartedCalls())
        // Both answer `test.gated`; only the busy one holds it until the gate opens.
        try await withServer(methods: testMethods(started: busy, gate: gate), directory: directory) { _, _, _ in
            try await withServer(methods: testMethods(started: idle, gate: open), directory: directory) { _, _, _ in
                let client = makeClient(directory: directory)
                defer { client.shutdown() }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    // Gated calls until one is held by the busy replica (those the idle one gets come straight back),
                    // and until every one sent has either come back or is held there.
                    var sent = 0
                    let answered = StartedCalls()
                    for attempt in 0..<100 where busy.value == 0 {
                        sent += 1
                        group.addTask {
                            _ = try await client.call("test", "test.gated", input: Echo(text: "\(attempt)"), context: context(), as: Echo.self)
                            answered.record()
                        }
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    while busy.value + answered.value < sent { try await Task.sleep(for: .milliseconds(5)) }
                    #expect(busy.value >= 1)
                    let (busyBefore, idleBefore) = (busy.value, idle.value)
                    for index in 0..<20 {
                        _ = try await client.call("test", "test.echo", input: Echo(text: "\(index)"), context: context(), as: Echo.self)
                    }
                    // Of two replicas, the one with a call in flight gets none while the other has none.
                    #expect(busy.value == busyBefore, "the busy replica got \(busy.value - busyBefore) of 20 calls")
                    #expect(idle.value == idleBefore + 20)
                    gate.openIt()
                    try await group.waitForAll()
                }
            }
        }
    }

    @Test func aSafeCallWhoseReplicaDiesGoesToAnotherAndTheReplicaIsLeftAlone() async throws {
        let directory = try temporarySocketDirectory()
        // Reads the request and drops the connection without answering.
        let dying = try await FaultyReplica(path: "\(directory)/dying.sock") { CloseOnRead() }
        defer { dying.channel.close(promise: nil) }
        try await withServer(directory: directory) { _, _, _ in
            let client = makeClient(directory: directory)
            defer { client.shutdown() }
            let started = ContinuousClock.now
            for index in 0..<30 {
                let echoed = try await client.call(
                    "test", "test.echo", input: Echo(text: "\(index)"), context: context(), as: Echo.self, retry: .safe)
                #expect(echoed.text == "\(index)")
            }
            // Ejected after its first loss for a second, then for two: picked at random it would have had some fifteen.
            let seconds = Int((ContinuousClock.now - started).seconds.rounded(.up))
            #expect(dying.accepts <= 1 + seconds, "the dying replica was tried \(dying.accepts) times in \(seconds) s")
        }
    }

    @Test func anUnsafeCallWhoseReplicaDiesIsNotSentAgain() async throws {
        let directory = try temporarySocketDirectory()
        let dying = try await FaultyReplica(path: "\(directory)/dying.sock") { CloseOnRead() }
        defer { dying.channel.close(promise: nil) }
        let started = StartedCalls()
        try await withServer(methods: testMethods(started: started), directory: directory) { _, _, _ in
            let client = makeClient(directory: directory)
            defer { client.shutdown() }
            var lost = 0
            for index in 0..<30 {
                do {
                    _ = try await client.call("test", "test.echo", input: Echo(text: "\(index)"), context: context(), as: Echo.self)
                } catch let error as RPCError where error.reason == "service_connection_lost" {
                    lost += 1
                }
            }
            // The calls the dying replica took are lost, not run a second time elsewhere.
            #expect(lost >= 1 && lost == dying.accepts, "lost \(lost), dying replica took \(dying.accepts)")
            #expect(started.value == 30 - lost)
        }
    }

    @Test func aReplicaThatStopsAnsweringIsLeftAloneAfterTwoTimeouts() async throws {
        let directory = try temporarySocketDirectory()
        // Accepts connections, reads the calls and never answers.
        let received = StartedCalls()
        let silent = try await FaultyReplica(path: "\(directory)/silent.sock") { CountReads(received) }
        defer { silent.channel.close(promise: nil) }
        try await withServer(directory: directory) { _, _, _ in
            let client = makeClient(directory: directory)
            defer { client.shutdown() }
            let started = ContinuousClock.now
            for index in 0..<30 {
                _ = try? await client.call("test", "test.echo", input: Echo(text: "\(index)"), context: context(timeout: 0.3), as: Echo.self)
            }
            // Two timeouts eject it for a second, each further one (a probe) for twice as long: picked at random it
            // would have had some fifteen of the thirty calls.
            let elapsed = (ContinuousClock.now - started).seconds
            let probes = Int(log2(elapsed + 1).rounded(.up)) + 1
            #expect(received.value >= 2 && received.value <= 2 + probes, "the silent replica got \(received.value) calls in \(elapsed) s")
        }
    }

    /// Over a network that dropped packets the old connections are stuck in TCP's backoff: the call after the
    /// ejection must not queue behind them.
    @Test func aReplicaEjectedForTimeoutsIsTriedAgainOnANewConnection() async throws {
        let directory = try temporarySocketDirectory()
        let (received, closed) = (StartedCalls(), StartedCalls())
        let silent = try await FaultyReplica(path: "\(directory)/silent.sock") { CountReads(received, closes: closed) }
        defer { silent.channel.close(promise: nil) }
        let client = makeClient(directory: directory)
        defer { client.shutdown() }
        // The second timeout ejects it and closes its connection; a later call opens a new one (on a loaded machine
        // a connect may time out first, hence a few calls more).
        for index in 0..<8 where silent.accepts < 2 || closed.value < 1 {
            _ = try? await client.call("test", "test.echo", input: Echo(text: "\(index)"), context: context(timeout: 0.3), as: Echo.self)
        }
        #expect(received.value >= 2)
        #expect(closed.value >= 1 && silent.accepts >= 2, "closed \(closed.value), accepted \(silent.accepts)")
    }
}

/// Replicas found by name: every address a name resolves to, as a Kubernetes headless Service's name gives them.
@Suite("RPC client: replicas found by name")
struct NameDiscoveryTests {
    @Test func aNameResolvesToItsAddresses() {
        let endpoints = NameResolution.lookUp(host: "localhost", port: 7070)
        #expect(endpoints.contains(.tcp(host: "127.0.0.1", port: 7070)), "\(endpoints)")
        #expect(NameResolution.lookUp(host: "no-such-name.invalid", port: 7070).isEmpty)
    }

    @Test func callsReachTheReplicasANameResolvesTo() async throws {
        let server = RPCServer(configuration: .init(endpoint: .tcp(host: "127.0.0.1", port: 0)), methods: testMethods(), logger: testLogger)
        let group = ServiceGroupForTests(server)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let port = try #require(try await server.listeningAddress().port)
            // localhost may resolve to ::1 as well, where nothing listens: that address is left alone.
            let client = RPCClient(services: ["test": .dns(host: "localhost", port: port)], logger: testLogger)
            tasks.addTask { try await client.run() }
            for index in 0..<10 {
                let echoed = try await client.call("test", "test.echo", input: Echo(text: "\(index)"), context: context(), as: Echo.self)
                #expect(echoed.text == "\(index)")
            }
            client.shutdown()
            await group.stop()
            tasks.cancelAll()
        }
    }

    @Test func aNameThatDoesNotResolveIsUnavailableAtOnce() async throws {
        let client = RPCClient(services: ["test": .dns(host: "no-such-name.invalid", port: 7070)], logger: testLogger)
        defer { client.shutdown() }
        let error = await #expect(throws: RPCError.self) {
            try await client.call("test", "test.echo", input: Echo(text: "x"), context: context(timeout: 60), as: Echo.self)
        }
        #expect(error?.code == .unavailable)
    }
}
