import CustodianJSON
import Foundation
import Logging
import Tracing
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Calls methods of other services by service name. Finds each service's replicas (socket files in its
/// runtime directory, or configured endpoints), sends each call to the less busy of two of them (fewest calls in
/// flight), keeps a few pipelined connections per replica, reconnects on its own, leaves a replica that stops
/// answering alone for a while and then tries it again, and sends a call to another replica when it surely did not
/// run, or when it may have run and its method is safe to retry (``RPCRetry``).
public final class RPCClient: Service, Sendable {
    public struct Settings: Sendable {
        /// Enough for one on each of the caller's event loops (see `EndpointPool`), and one more.
        public var connectionsPerEndpoint = min(max(2, NIOSingletons.groupLoopCountSuggestion + 1), 16)
        /// Calls in flight on the least busy connection before a further one is opened.
        public var callsBeforeAnotherConnection = 32
        public var maximumFrameSize = RPCFraming.defaultMaximumFrameSize
        public var connectTimeout: TimeAmount = .milliseconds(500)
        /// How long a replica that refused a connection is skipped.
        public var downInterval: TimeAmount = .seconds(1)
        /// Used when the caller's context has no deadline.
        public var defaultTimeout: Duration = .seconds(30)
        /// How often a runtime directory is listed again for new or vanished replicas.
        public var rescanInterval: Duration = .milliseconds(500)
        /// How often a name whose addresses are the replicas is resolved again.
        public var resolveInterval: Duration = .seconds(5)
        /// Mutual TLS for replicas on TCP endpoints (a replica's certificate must name its service).
        public var tls: RPCTLS?

        public init() {}
    }

    /// Where a service's replicas are.
    public enum Discovery: Sendable, Equatable {
        /// Every `*.sock` file in this directory is one replica.
        case directory(String)
        case endpoints([Endpoint])
        /// Every address the name resolves to is one replica, on `port` (a Kubernetes headless Service's name).
        case dns(host: String, port: Int)
    }

    /// Told about every call, for metrics.
    public typealias Observer = @Sendable (_ service: String, _ method: String, _ seconds: Double, _ outcome: String) -> Void

    private let services: [String: ServiceReplicas]
    private let logger: Logger
    private let observer: Observer

    public init(
        services: [String: Discovery],
        settings: Settings = Settings(),
        logger: Logger,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        observer: @escaping Observer = { _, _, _, _ in }
    ) {
        self.services = Dictionary(
            uniqueKeysWithValues: services.map { service, discovery in
                (service, ServiceReplicas(service: service, discovery: discovery, settings: settings, eventLoopGroup: eventLoopGroup))
            })
        self.logger = logger
        self.observer = observer
    }

    public var serviceNames: [String] { services.keys.sorted() }

    /// Calls `method` of `service` and decodes its result.
    public func call<Input: Encodable & Sendable, Output: Decodable & Sendable>(
        _ service: String, _ method: String, input: Input, context: CallContext,
        as output: Output.Type = Output.self, timeout: Duration? = nil, retry: RPCRetry = .unsafe
    ) async throws -> Output {
        try await traced(service, method, context: context) { context, span in
            try await perform(service, method, input: input, context: context, timeout: timeout, retry: retry, span: span)
        }
    }

    /// Calls a method every service answers (`system.*`) on each replica of `service` known now, once each and never
    /// on another: the answers of the replicas that answered, in their endpoints' order. For what each process keeps
    /// on its own, such as the spans it dropped; a replica that does not answer is left out.
    public func callEachReplica<Output: Decodable & Sendable>(
        _ method: RPCMethod<Empty, Output>, on service: String, context: CallContext, timeout: Duration? = nil
    ) async -> [Output] {
        guard let replicas = services[service] else { return [] }
        let pools = replicas.candidates().sorted { $0.endpoint.description < $1.endpoint.description }
        let deadline = effectiveDeadline(context: context, timeout: timeout ?? replicas.settings.defaultTimeout)
        return await withTaskGroup(of: (Int, Output?).self) { group in
            for (index, pool) in pools.enumerated() {
                group.addTask {
                    let answer = try? await self.traced(service, method.name, context: context) { context, span in
                        if span.isRecording { pool.endpoint.describe(in: span) }
                        var context = context
                        context.deadline = Int64((deadline.timeIntervalSince1970 * 1000).rounded())
                        let response = try await self.send(method.name, input: Empty(), context: context, to: pool, deadline: deadline)
                        if let error = try response.error(service: service, method: method.name) { throw error }
                        return try response.result(as: Output.self, service: service, method: method.name)
                    }
                    return (index, answer)
                }
            }
            var answers: [(Int, Output)] = []
            for await (index, answer) in group { if let answer { answers.append((index, answer)) } }
            return answers.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// Runs `body`, which makes one call, in the call's client span, with the span in the context it sends, and tells
    /// the observer how it went.
    private func traced<Output>(
        _ service: String, _ method: String, context: CallContext, _ body: (CallContext, any Span) async throws -> Output
    ) async throws -> Output {
        let started = ContinuousClock.now
        return try await Spans.run("\(service)/\(method)", kind: .client, failed: { !Self.isRejection($0) }) { span in
            if span.isRecording {
                span.attributes["rpc.system"] = "jsonrpc"
                span.attributes["rpc.service"] = service
                span.attributes["rpc.method"] = method
            }
            var context = context
            context.traceparent = TraceParent.of(span.context)
            do {
                let result = try await body(context, span)
                observer(service, method, (ContinuousClock.now - started).seconds, "ok")
                return result
            } catch {
                // Thrown on as caught: an error bound to its type would be boxed again.
                observer(service, method, (ContinuousClock.now - started).seconds, Self.isRejection(error) ? "rejected" : "error")
                if let error = error as? RPCError, span.isRecording { span.attributes["rpc.jsonrpc.error_code"] = error.code.rawValue }
                throw error
            }
        }
    }

    /// The service refused the call (a 4xx): the caller's fault, not a failure of the call.
    static func isRejection(_ error: any Error) -> Bool {
        (error as? RPCError).map { $0.code.httpStatus < 500 } ?? false
    }

    /// Calls a method that takes no input.
    public func call<Output: Decodable & Sendable>(
        _ service: String, _ method: String, context: CallContext, as output: Output.Type = Output.self, timeout: Duration? = nil,
        retry: RPCRetry = .unsafe
    ) async throws -> Output {
        try await call(service, method, input: Empty(), context: context, as: output, timeout: timeout, retry: retry)
    }

    private func perform<Input: Encodable & Sendable, Output: Decodable & Sendable>(
        _ service: String, _ method: String, input: Input, context: CallContext, timeout: Duration?, retry: RPCRetry, span: any Span
    ) async throws -> Output {
        guard let replicas = services[service] else {
            throw RPCError.unavailable("no endpoint is configured for service \(service)", reason: "service_unknown")
        }
        let deadline = effectiveDeadline(context: context, timeout: timeout ?? replicas.settings.defaultTimeout)
        var callContext = context
        callContext.deadline = Int64((deadline.timeIntervalSince1970 * 1000).rounded())

        var call = CallStateMachine(retry: retry, replicas: replicas.candidates())
        var action = call.start()
        while true {
            switch action {
            case .send(let pool):
                let response: RPCResponseFrame
                do {
                    // Which replica: on a retry, the one that answered last.
                    if span.isRecording { pool.endpoint.describe(in: span) }
                    response = try await send(method, input: input, context: callContext, to: pool, deadline: deadline)
                } catch let error as RPCTransportError {
                    pool.record(error)
                    action = call.failed(error, deadlinePassed: Date() >= deadline)
                    if span.isRecording { span.addEvent(SpanEvent(name: "replica_failed", attributes: ["error.type": "\(error)"])) }
                    if !error.surelyDidNotRun, case .send = action {
                        logger.notice(
                            "RPC call lost; sending it to another replica",
                            metadata: ["service": .string(service), "method": .string(method), "error": .string(error.description)])
                    }
                    continue
                }
                if let error = try response.error(service: service, method: method) {
                    action = call.answered(error)
                    continue
                }
                return try response.result(as: Output.self, service: service, method: method)
            case .listAgain:
                await replicas.resolve()
                action = call.listed(replicas.candidates(listingAgain: true))
            case .fail(.answered(let error)):
                throw error
            case .fail(.deadlineExceeded):
                throw RPCError(.deadlineExceeded, reason: "deadline_exceeded", message: "service \(service) did not answer \(method) in time")
            case .fail(.connectionLost(let problem)):
                logger.warning("RPC call lost", metadata: ["service": .string(service), "method": .string(method), "error": .string(problem)])
                throw RPCError.unavailable(
                    "The \(service) service stopped answering (lost the connection during the call)", reason: "service_connection_lost")
            case .fail(.noReplicaAnswered(let problem)):
                logger.warning(
                    "no replica answered", metadata: ["service": .string(service), "method": .string(method), "problem": .string(problem)])
                throw RPCError.unavailable("The \(service) service is temporarily unavailable", reason: "service_unavailable")
            }
        }
    }

    /// Sends the call on one of `pool`'s connections and waits for the response.
    private func send<Input: Encodable>(
        _ method: String, input: Input, context: CallContext, to pool: EndpointPool,
        deadline: Date
    ) async throws -> RPCResponseFrame {
        let connection = try await pool.connection()
        let id = connection.allocateID()
        let frame = try Self.requestFrame(id: id, method: method, context: context, input: input)
        // A frame over the limit would make the server close the connection, failing every call on it.
        let maximumFrameSize = pool.settings.maximumFrameSize
        guard frame.readableBytes <= maximumFrameSize else {
            throw RPCError(
                .payloadTooLarge, reason: "request_too_large",
                message: "The request is too large to pass on (\(frame.readableBytes) bytes as an RPC frame, at most \(maximumFrameSize))")
        }
        let response = try await connection.call(id: id, frame: frame, deadline: NIODeadline(deadline))
        pool.recordAnswer()
        return response
    }

    /// The request frame: its members in sorted order, the input written by ``JSONValueEncoder``.
    static func requestFrame<Input: Encodable>(id: RPCID, method: String, context: CallContext, input: Input) throws -> ByteBuffer {
        var frame: [UInt8] = []
        frame.reserveCapacity(512)
        var request = JSONObjectWriter(into: &frame)
        request.key("id", into: &frame)
        id.write(into: &frame)
        request.string("jsonrpc", "2.0", into: &frame)
        request.string("method", method, into: &frame)
        request.key("params", into: &frame)
        var params = JSONObjectWriter(into: &frame)
        params.key("context", into: &frame)
        context.writeJSON(into: &frame)
        params.key("input", into: &frame)
        try JSONValueEncoder().write(input, into: &frame)
        params.end(into: &frame)
        request.end(into: &frame)
        return ByteBuffer(bytes: frame)
    }

    private func effectiveDeadline(context: CallContext, timeout: Duration) -> Date {
        let own = Date().addingTimeInterval(timeout.seconds)
        guard let callerDeadline = context.deadlineDate else { return own }
        return min(own, callerDeadline)
    }

    /// Resolves the names of services found by name again and again, until the graceful shutdown; then closes every
    /// connection.
    public func run() async throws {
        let named = services.values.filter(\.isFoundByName)
        await withDiscardingTaskGroup { group in
            for replicas in named {
                group.addTask {
                    while !Task.isCancelled {
                        await replicas.resolve()
                        try? await Task.sleep(for: replicas.settings.resolveInterval)
                    }
                }
            }
            try? await gracefulShutdown()
            group.cancelAll()
        }
        shutdown()
    }

    /// Closes every connection.
    public func shutdown() {
        for replicas in services.values { replicas.close() }
    }
}

/// The replicas of one service and a pool for each.
final class ServiceReplicas: Sendable {
    let service: String
    let settings: RPCClient.Settings
    private let discovery: RPCClient.Discovery
    private let eventLoopGroup: any EventLoopGroup
    private let state = Mutex(State())

    private struct State {
        /// For a service found by name: its addresses as last resolved.
        var resolved: [Endpoint] = []
        var pools: [Endpoint: EndpointPool] = [:]
        /// Which socket file each pool was made for: a replica replaced under the same name makes a new one.
        var sockets: [Endpoint: UInt64] = [:]
        /// `pools` in the order of their endpoints, made again when they change: every call reads it.
        var ordered: [EndpointPool] = []
        var scannedAt: ContinuousClock.Instant?
    }

    init(service: String, discovery: RPCClient.Discovery, settings: RPCClient.Settings, eventLoopGroup: any EventLoopGroup) {
        self.service = service
        self.discovery = discovery
        self.settings = settings
        self.eventLoopGroup = eventLoopGroup
    }

    /// The pools to try in turn (``CallStateMachine/order(_:isAvailable:inFlight:using:)``).
    func candidates(listingAgain: Bool = false) -> [EndpointPool] {
        var random = SystemRandomNumberGenerator()
        return CallStateMachine<EndpointPool>.order(
            currentPools(listingAgain: listingAgain), isAvailable: \.isAvailable, inFlight: \.inFlight, using: &random)
    }

    private func currentPools(listingAgain: Bool) -> [EndpointPool] {
        let now = ContinuousClock.now
        let needsScan =
            listingAgain
            || state.withLock { state in
                state.scannedAt.map { now - $0 >= settings.rescanInterval } ?? true
            }
        let found: [Endpoint: UInt64]? = needsScan ? discover() : nil
        // A replica whose socket vanished is shutting down: new calls go elsewhere, but its connections stay
        // open for the calls in flight; the replica closes them once those are answered.
        var replaced: [EndpointPool] = []
        let pools = state.withLock { state in
            if let found {
                state.scannedAt = now
                var changed = false
                for endpoint in state.pools.keys where found[endpoint] == nil {
                    state.pools[endpoint] = nil
                    state.sockets[endpoint] = nil
                    changed = true
                }
                for (endpoint, socket) in found where state.pools[endpoint] == nil || state.sockets[endpoint] != socket {
                    // A new socket under a known name is a new replica: none of the old one's failures count against it.
                    if let old = state.pools[endpoint] { replaced.append(old) }
                    state.pools[endpoint] = EndpointPool(endpoint: endpoint, service: service, settings: settings, eventLoopGroup: eventLoopGroup)
                    state.sockets[endpoint] = socket
                    changed = true
                }
                if changed { state.ordered = state.pools.values.sorted { $0.endpoint.description < $1.endpoint.description } }
            }
            return state.ordered
        }
        for pool in replaced { pool.close() }
        return pools
    }

    var isFoundByName: Bool {
        if case .dns = discovery { return true }
        return false
    }

    /// Resolves the service's name again, for a service found by name (nothing for the others).
    func resolve() async {
        guard case .dns(let host, let port) = discovery else { return }
        let endpoints = await NameResolution.endpoints(host: host, port: port)
        state.withLock { state in
            // A failed lookup keeps the replicas known: a DNS server that is down does not take the service away.
            if !endpoints.isEmpty { state.resolved = endpoints }
            state.scannedAt = nil
        }
    }

    /// The replicas, each with what identifies its socket file (``SocketFile``; 0 for endpoints not found in a directory).
    private func discover() -> [Endpoint: UInt64] {
        switch discovery {
        case .endpoints(let endpoints):
            return Dictionary(endpoints.map { ($0, UInt64(0)) }, uniquingKeysWith: { first, _ in first })
        case .dns:
            return Dictionary(state.withLock { $0.resolved }.map { ($0, UInt64(0)) }, uniquingKeysWith: { first, _ in first })
        case .directory(let directory):
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            var found: [Endpoint: UInt64] = [:]
            for name in names where name.hasSuffix(".sock") {
                guard let identity = SocketFile.identity("\(directory)/\(name)"), let endpoint = try? Endpoint("unix:\(directory)/\(name)") else {
                    continue
                }
                found[endpoint] = identity
            }
            return found
        }
    }

    func close() {
        let pools = state.withLock { state in
            defer {
                state.pools.removeAll()
                state.ordered.removeAll()
            }
            return Array(state.pools.values)
        }
        for pool in pools { pool.close() }
    }
}

extension NIODeadline {
    init(_ date: Date) {
        let remaining = max(0, date.timeIntervalSinceNow)
        self = .now() + .nanoseconds(Int64(remaining * 1e9))
    }
}
