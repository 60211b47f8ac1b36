import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing
@testable import CustodianRPC

@Suite("RPC client and server over Unix sockets")
struct ClientServerTests {
    @Test func aCallRoundTrips() async throws {
        try await withServer { _, directory, _ in
            let client = makeClient(directory: directory)
            defer { client.shutdown() }
            let echoed = try await client.call("test", "test.echo", input: Echo(text: "hello"), context: context(), as: Echo.self)
            #expect(echoed.text == "hello")
        }
    }

    @Test func concurrentCallsOnOneConnectionComeBackOutOfOrderToTheRightCaller() async throws {
        let started = StartedCalls()
        try await withServer(methods: testMethods(started: started)) { _, directory, _ in
            var settings = RPCClient.Settings()
            settings.connectionsPerEndpoint = 1
            let client = makeClient(directory: directory, settings: settings)
            defer { client.shutdown() }
            let finished = CompletionOrder()
            try await withThrowingTaskGroup(of: Void.self) { group in
                // The first call is held by the server until the last one has come back: its answer must wait, and the
                // others' answers must overtake it on the same connection, each to its own caller.
                group.addTask {
                    let echoed = try await client.call("test", "test.gated", input: Echo(text: "held"), context: context(timeout: 60), as: Echo.self)
                    #expect(echoed.text == "held")
                    finished.append(echoed.text)
                }
                while started.value == 0 { try await Task.sleep(for: .milliseconds(10)) }
                for text in ["first", "second"] {
                    let echoed = try await client.call("test", "test.echo", input: Echo(text: text), context: context(timeout: 60), as: Echo.self)
                    #expect(echoed.text == text)
                    finished.append(echoed.text)
                }
                _ = try await client.call("test", "test.openGate", context: context(timeout: 60), as: Empty.self)
                try await group.waitForAll()
            }
            #expect(finished.values == ["first", "second", "held"])
        }
    }

    /// Heavy calls off the loop are what keeps one from holding up the other connections of that loop.
    @Test func briefCallsRunOnTheConnectionsEventLoopAndHeavyOnesElsewhere() async throws {
        try await withServer { _, directory, _ in
            let client = makeClient(directory: directory)
            defer { client.shutdown() }
            let brief = try await client.call("test", "test.where", context: context(), as: String.self)
            #expect(brief == "loop")
            let heavy = try await client.call("test", "test.whereHeavy", context: context(), as: String.self)
            #expect(heavy == "pool")
            // A frame of 64 KiB or more is a lot of JSON to read: off the loop as well.
            let large = try await client.call(
                "test", "test.where", input: Echo(text: String(repeating: "x", count: OffLoop.largeBodySize)),
                context: context(), as: String.self)
            #expect(large == "pool")
        }
    }

    /// A brief call runs on the loop however many others of its connection are in flight: sending it elsewhere would
    /// cost it a thread wake-up, more than its own work.
    @Test(arguments: [1, 8, 32])
    func aBriefCallRunsOnTheLoopBesideOthersInFlight(busy: Int) async throws {
        let started = StartedCalls()
        try await withServer(methods: testMethods(started: started)) { _, directory, _ in
            var settings = RPCClient.Settings()
            settings.connectionsPerEndpoint = 1
            let client = makeClient(directory: directory, settings: settings)
            defer { client.shutdown() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<busy {
                    group.addTask {
                        _ = try await client.call(
                            "test", "test.echo", input: Echo(text: "busy", delayMilliseconds: 2000), context: context(timeout: 60), as: Echo.self)
                    }
                }
                while started.value < busy { try await Task.sleep(for: .milliseconds(10)) }
                let beside = try await client.call("test", "test.where", context: context(), as: String.self)
                #expect(beside == "loop", "beside \(busy) calls in flight")
                try await group.waitForAll()
            }
        }
    }

    @Test func manyPipelinedCallsAllSucceed() async throws {
        try await withServer { _, directory, _ in
            let client = makeClient(directory: directory)
            defer { client.shutdown() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<500 {
                    group.addTask {
                        let echoed = try await client.call("test", "test.echo", input: Echo(text: "n\(index)"), context: context(), as: Echo.self)
                        #expect(echoed.text == "n\(index)")
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    @Test func applicationErrorsArriveAsRPCErrors() async throws {
        try await withServer { _, directory, _ in
            let client = makeClient(directory: directory)
            defer { client.shutdown() }
            let error = await #expect(throws: RPCError.self) {
                try await client.call("test", "test.notFound", context: context(), as: Empty.self)
            }
            #expect(error?.code == .notFound)
            #expect(error?.reason == "activation_token_not_found")
        }
    }

    @Test func unknownMethodThroughTheClient() async throws {
        try await withServer { _, directory, _ in
            let client = makeClient(directory: directory)
            defer { client.shutdown() }
            let error = await #expect(throws: RPCError.self) {
                try await client.call("test", "test.missing", context: context(), as: Empty.self)
            }
            #expect(error?.code == .methodNotFound)
        }
    }

    @Test func aCallPastItsDeadlineFailsInsteadOfWaiting() async throws {
        try await withServer { _, directory, _ in
            let client = makeClient(directory: directory)
            defer { client.shutdown() }
            let started = ContinuousClock.now
            let error = await #expect(throws: RPCError.self) {
                try await client.call(
                    "test", "test.echo", input: Echo(text: "x", delayMilliseconds: 10000), context: context(timeout: 0.2), as: Echo.self)
            }
            #expect(error?.code == .deadlineExceeded)
            #expect(ContinuousClock.now - started < .seconds(5), "the 10 s call was not waited for")
        }
    }

    /// A connection keeps one timer for its calls' earliest deadline: a call with a nearer deadline than those in flight
    /// must still fail at its own, and the later one at its own after that.
    @Test func eachCallOnAConnectionFailsAtItsOwnDeadline() async throws {
        try await withServer { _, directory, _ in
            var settings = RPCClient.Settings()
            settings.connectionsPerEndpoint = 1
            let client = RPCClient(services: ["test": .directory(directory)], settings: settings, logger: testLogger)
            defer { client.shutdown() }
            let started = ContinuousClock.now
            let far = Task {
                try await client.call(
                    "test", "test.echo", input: Echo(text: "far", delayMilliseconds: 6000), context: context(timeout: 4), as: Echo.self)
            }
            try await Task.sleep(for: .milliseconds(300))
            let near = await #expect(throws: RPCError.self) {
                try await client.call(
                    "test", "test.echo", input: Echo(text: "near", delayMilliseconds: 6000), context: context(timeout: 0.3), as: Echo.self)
            }
            #expect(near?.code == .deadlineExceeded)
            #expect(ContinuousClock.now - started < .seconds(3), "the near deadline waited for the far one")
            let farError = await #expect(throws: RPCError.self) { try await far.value }
            #expect(farError?.code == .deadlineExceeded)
            let elapsed = ContinuousClock.now - started
            #expect(elapsed >= .seconds(3.9) && elapsed < .seconds(15), "the far call failed at \(elapsed), its deadline 4 s")
        }
    }

    @Test func cancellingTheCallerEndsTheCall() async throws {
        try await withServer { _, directory, _ in
            let client = makeClient(directory: directory)
            defer { client.shutdown() }
            let started = ContinuousClock.now
            let call = Task {
                try await client.call(
                    "test", "test.echo", input: Echo(text: "x", delayMilliseconds: 60000), context: context(timeout: 120), as: Echo.self)
            }
            try await Task.sleep(for: .milliseconds(100))
            call.cancel()
            await #expect(throws: CancellationError.self) { try await call.value }
            #expect(ContinuousClock.now - started < .seconds(20), "the 60 s call was not waited for")
        }
    }

    @Test func noReplicaGivesUnavailableAtOnce() async throws {
        let directory = try temporarySocketDirectory()
        let client = makeClient(directory: directory)
        let started = ContinuousClock.now
        // A deadline far beyond the bound, so that a loaded machine's slowness cannot pass for waiting on it.
        let error = await #expect(throws: RPCError.self) {
            try await client.call("test", "test.echo", input: Echo(text: "x"), context: context(timeout: 60), as: Echo.self)
        }
        #expect(error?.code == .unavailable)
        #expect(ContinuousClock.now - started < .seconds(20), "not waiting for the 60 s deadline")
    }

    @Test func aStaleSocketFileIsSkippedQuickly() async throws {
        let directory = try temporarySocketDirectory()
        // A socket file nobody listens on, as a killed replica leaves behind.
        let stale = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(unixDomainSocketPath: "\(directory)/dead.sock").get()
        try await stale.close()
        _ = FileManager.default.createFile(atPath: "\(directory)/dead.sock", contents: nil)
        let client = makeClient(directory: directory)
        let started = ContinuousClock.now
        // A deadline far beyond the bound, so that a loaded machine's slowness cannot pass for waiting on it.
        let error = await #expect(throws: RPCError.self) {
            try await client.call("test", "test.echo", input: Echo(text: "x"), context: context(timeout: 60), as: Echo.self)
        }
        #expect(error?.code == .unavailable)
        #expect(ContinuousClock.now - started < .seconds(20), "not waiting for the 60 s deadline")
    }

    @Test func callsSpreadAcrossReplicasAndSurviveOneStopping() async throws {
        let directory = try temporarySocketDirectory()
        try await withServer(directory: directory) { _, _, _ in
            let client = makeClient(directory: directory)
            defer { client.shutdown() }
            try await withServer(directory: directory) { _, _, _ in
                for index in 0..<10 {
                    _ = try await client.call("test", "test.echo", input: Echo(text: "\(index)"), context: context(), as: Echo.self)
                }
            }
            // The second replica has shut down and removed its socket: calls go to the first.
            for index in 0..<10 {
                let echoed = try await client.call("test", "test.echo", input: Echo(text: "\(index)"), context: context(), as: Echo.self)
                #expect(echoed.text == "\(index)")
            }
        }
    }

    @Test func aPeerThatDiesMidCallGivesAClearErrorNotAHang() async throws {
        let directory = try temporarySocketDirectory()
        // A peer that reads the request and then drops the connection without answering.
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(CloseOnRead()) }
            }
            .bind(unixDomainSocketPath: "\(directory)/dying.sock").get()
        defer { server.close(promise: nil) }
        let client = makeClient(directory: directory)
        defer { client.shutdown() }
        let started = ContinuousClock.now
        let error = await #expect(throws: RPCError.self) {
            try await client.call("test", "test.echo", input: Echo(text: "x"), context: context(timeout: 120), as: Echo.self)
        }
        #expect(error?.code == .unavailable)
        #expect(error?.reason == "service_connection_lost")
        #expect(ContinuousClock.now - started < .seconds(20), "not waiting for the 120 s deadline")
    }

    @Test func gracefulShutdownFinishesCallsInFlightAndRemovesTheSocket() async throws {
        let directory = try temporarySocketDirectory()
        let client = makeClient(directory: directory)
        defer { client.shutdown() }
        let started = StartedCalls()
        let socketPath = try await withServer(methods: testMethods(started: started), directory: directory) { server, _, endpoint in
            guard case .unix(let path) = endpoint else { throw CancellationError() }
            #expect(FileManager.default.fileExists(atPath: path))
            // Starts a slow call; withServer triggers the graceful shutdown while it runs.
            let slow = Task {
                try await client.call("test", "test.echo", input: Echo(text: "finished", delayMilliseconds: 500), context: context(), as: Echo.self)
            }
            while started.value == 0 { try await Task.sleep(for: .milliseconds(5)) }
            return (path, slow)
        }
        #expect(try await socketPath.1.value.text == "finished")
        #expect(!FileManager.default.fileExists(atPath: socketPath.0))
    }

    @Test func overTCPToo() async throws {
        let methods = testMethods()
        let server = RPCServer(configuration: .init(endpoint: .tcp(host: "127.0.0.1", port: 0)), methods: methods, logger: testLogger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            let serviceGroup = ServiceGroupForTests(server)
            group.addTask { try await serviceGroup.run() }
            let address = try await server.listeningAddress()
            let client = RPCClient(services: ["test": .endpoints([.tcp(host: "127.0.0.1", port: address.port!)])], logger: testLogger)
            defer { client.shutdown() }
            let echoed = try await client.call("test", "test.echo", input: Echo(text: "tcp"), context: context(), as: Echo.self)
            #expect(echoed.text == "tcp")
            await serviceGroup.stop()
            try await group.waitForAll()
        }
    }
}

final class CloseOnRead: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.close(promise: nil)
    }
}

private final class CompletionOrder: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ value: String) { storage.withLock { $0.append(value) } }
    var values: [String] { storage.withLock { $0 } }
}
