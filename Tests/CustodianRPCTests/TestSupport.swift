import Foundation
import Logging
import NIOPosix
import Synchronization
import ServiceLifecycle
@testable import CustodianRPC

/// A short, fresh directory for socket files (socket paths must stay under 108 bytes).
func temporarySocketDirectory() throws -> String {
    let path = "/tmp/crpc-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

struct Echo: Codable, Sendable, Equatable {
    var text: String
    var delayMilliseconds: Int?
}

/// Counts the calls a test server has started, so that a test can wait until one is surely running.
final class StartedCalls: Sendable {
    private let count = Mutex(0)
    func record() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// Holds `test.gated` calls until `test.openGate` runs: an order of answers that no timing decides.
final class Gate: Sendable {
    private let open = Mutex(false)
    func openIt() { open.withLock { $0 = true } }
    var isOpen: Bool { open.withLock { $0 } }
}

/// Methods the tests call: echo with an optional delay, and one that fails with an application error.
func testMethods(started: StartedCalls = StartedCalls(), gate: Gate = Gate()) -> RPCMethods {
    var methods = RPCMethods()
    methods.register("test.gated", input: Echo.self) { input, _ in
        started.record()
        while !gate.isOpen { try await Task.sleep(for: .milliseconds(10)) }
        return input
    }
    methods.register("test.openGate", input: Empty.self) { _, _ in
        gate.openIt()
        return Empty()
    }
    methods.register("test.echo", input: Echo.self) { input, _ in
        started.record()
        if let delay = input.delayMilliseconds { try await Task.sleep(for: .milliseconds(delay)) }
        return input
    }
    methods.register("test.notFound", input: Empty.self) { _, _ -> Empty in
        throw RPCError.notFound("No account found for provided activation token", reason: "activation_token_not_found")
    }
    // An answer larger than its question, for frame limits.
    methods.register("test.repeat", input: Echo.self) { input, _ in
        Echo(text: String(repeating: input.text, count: input.delayMilliseconds ?? 1))
    }
    methods.register("test.whoami", input: Empty.self) { _, context in
        context.principal?.id ?? "nobody"
    }
    // Declared access: the dispatcher refuses other callers before the handler runs.
    methods.register("test.adminOnly", input: Empty.self, requires: [.admin]) { _, context in
        started.record()
        return context.principal?.id ?? "nobody"
    }
    methods.register("test.vaultOnly", input: Empty.self, requires: [.user, .module]) { _, context in
        started.record()
        return context.principal?.id ?? "nobody"
    }
    methods.register("test.ownerOnly", input: Empty.self, requires: .only(.user, refusing: .forbidden("Only the owner may"))) { _, context in
        started.record()
        return context.principal?.id ?? "nobody"
    }
    // Where a call runs: "loop" on an event loop thread, "pool" elsewhere.
    methods.register("test.where", input: Empty.self) { _, _ in threadKind() }
    methods.register("test.whereHeavy", input: Empty.self, work: .cpuHeavy) { _, _ in threadKind() }
    return methods
}

private func threadKind() -> String {
    MultiThreadedEventLoopGroup.currentEventLoop == nil ? "pool" : "loop"
}

let testLogger = Logger(label: "rpc-tests")

/// Runs an RPC server on a fresh socket for the duration of `body`, then shuts it down gracefully.
func withServer<T: Sendable>(
    methods: RPCMethods = testMethods(),
    directory: String? = nil,
    maximumFrameSize: Int = RPCFraming.defaultMaximumFrameSize,
    _ body: @Sendable (_ server: RPCServer, _ directory: String, _ endpoint: Endpoint) async throws -> T
) async throws -> T {
    let directory = try directory ?? temporarySocketDirectory()
    let endpoint = try Endpoint("unix:\(directory)/\(UUID().uuidString.prefix(6)).sock")
    let server = RPCServer(configuration: .init(endpoint: endpoint, maximumFrameSize: maximumFrameSize), methods: methods, logger: testLogger)
    let group = ServiceGroup(configuration: .init(services: [.init(service: server)], logger: testLogger))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        _ = try await server.listeningAddress()
        do {
            let result = try await body(server, directory, endpoint)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return result
        } catch {
            await group.triggerGracefulShutdown()
            try? await tasks.waitForAll()
            throw error
        }
    }
}

func makeClient(_ service: String = "test", directory: String, settings: RPCClient.Settings = RPCClient.Settings()) -> RPCClient {
    RPCClient(services: [service: .directory(directory)], settings: settings, logger: testLogger)
}

/// A generous deadline: the whole suite starts many platforms at once, and a loaded 2-core machine can take
/// seconds for a call that takes milliseconds alone. Tests that assert a bound use a deadline far beyond it.
func context(timeout: TimeInterval = 30) -> CallContext {
    CallContext(requestID: "test-\(UUID().uuidString.prefix(8))", deadline: Date().addingTimeInterval(timeout))
}

/// A service group around one server, for tests that run it by hand.
struct ServiceGroupForTests: Sendable {
    let group: ServiceGroup
    init(_ server: RPCServer) {
        group = ServiceGroup(configuration: .init(services: [.init(service: server)], logger: testLogger))
    }
    func run() async throws { try await group.run() }
    func stop() async { await group.triggerGracefulShutdown() }
}
