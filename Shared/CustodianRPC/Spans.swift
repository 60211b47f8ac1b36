import Tracing

/// Spans as every part of the platform opens them (docs/operations.md, "Tracing"): the request's at the gateway, each
/// RPC call's on both ends, each SQL statement's.
///
/// Unlike swift-distributed-tracing's `withSpan`, a failure does not record the error: that puts the error's message in
/// the span, and a message can quote what a client sent. The span gets the error's kind instead (`error.type`: an RPC
/// error's reason, such as `not_found`, or the error's type) and, when `failed` says the error is ours, an error status.
public enum Spans {
    public static func run<T>(
        _ name: String, kind: SpanKind = .internal, context: InstrumentationContext? = nil,
        failed: (any Error) -> Bool = { _ in true },
        isolation: isolated (any Actor)? = #isolation,
        _ body: (any Span) async throws -> T
    ) async rethrows -> T {
        let parent = context ?? InstrumentationContext.current ?? .topLevel
        let span = tracer.startSpan(name, context: parent, ofKind: kind)
        defer { span.end() }
        do {
            return try await InstrumentationContext.$current.withValue(span.context, operation: { try await body(span) }, isolation: isolation)
        } catch {
            mark(span, failedWith: error, isError: failed(error))
            throw error
        }
    }

    /// The process's tracer, found once: `InstrumentationSystem.tracer` searches under a lock on every use, which was
    /// 1.6 % of the gateway's CPU time when every span asked it. Processes install theirs first thing
    /// (`ProcessStart.begin`); one without (tools, tests) keeps the no-op tracer.
    static let tracer: any Tracer = InstrumentationSystem.tracer

    /// Records how `span`'s work failed, without the error's message.
    public static func mark(_ span: any Span, failedWith error: any Error, isError: Bool = true) {
        guard span.isRecording else { return }
        span.attributes["error.type"] = errorType(error)
        if isError { span.setStatus(SpanStatus(code: .error)) }
    }

    /// An RPC error's reason, else the error's type: a kind of failure, never what the failure quoted.
    public static func errorType(_ error: any Error) -> String {
        if let error = error as? RPCError { return error.reason }
        return String(describing: type(of: error))
    }
}

extension Endpoint {
    /// The replica a call went to, in OpenTelemetry's words for a peer: a socket file's path (whose name holds the
    /// replica's instance, ``SocketFile``) or a host and port.
    func describe(in span: any Span) {
        switch self {
        case .unix(let path):
            span.attributes["network.transport"] = "unix"
            span.attributes["server.address"] = path
        case .tcp(let host, let port):
            span.attributes["network.transport"] = "tcp"
            span.attributes["server.address"] = host
            span.attributes["server.port"] = port
        }
    }
}

extension Spans {
    /// A span for synchronous work that calls nothing (decrypting a payload, say), keeping the work's error type.
    public static func measure<T, Failure: Error>(_ name: String, _ body: () throws(Failure) -> T) throws(Failure) -> T {
        let span = tracer.startSpan(name, context: InstrumentationContext.current ?? .topLevel)
        defer { span.end() }
        do {
            return try body()
        } catch {
            mark(span, failedWith: error)
            throw error
        }
    }
}
