import NIOHTTP1
import Synchronization
import W3CTraceContext

/// Which trace of the platform an answer belongs to: the trace id in its `traceparent` (W3C Trace Context), whether
/// that trace was recorded (sampled), and its `X-Request-Id`. With these an operator finds a slow request of a load run
/// in the collector's traces and in the processes' logs (docs/operations.md, "Tracing").
public struct AnswerTrace: Sendable, Equatable {
    /// 32 hex digits; nil when the answer had no valid `traceparent` (a platform that does not trace, or no answer).
    public var traceID: String?
    /// Whether the gateway recorded the trace, so that a collector has it; nil without a trace id.
    public var sampled: Bool?
    public var requestID: String?

    public init(traceID: String?, sampled: Bool?, requestID: String?) {
        self.traceID = traceID
        self.sampled = sampled
        self.requestID = requestID
    }

    public init(headers: HTTPHeaders) {
        if let value = headers.first(name: "traceparent"), let context = try? TraceContext(traceParentHeaderValue: value) {
            traceID = context.traceID.description
            sampled = context.flags.contains(.sampled)
        }
        // The server's text, shown in a table: a bounded amount of it.
        requestID = headers.first(name: "X-Request-Id").map { String($0.prefix(128)) }
    }
}

extension AnswerTrace {
    /// The headers of the last answer an operation got (a retried request is answered more than once: the last answer
    /// is the one it counted). Kept as they came: only the slowest requests' are ever read.
    final class Latest: Sendable {
        private let headers = Mutex<HTTPHeaders?>(nil)

        func note(_ answer: HTTPHeaders) { headers.withLock { $0 = answer } }
        var answer: HTTPHeaders? { headers.withLock { $0 } }
    }

    /// The running operation's, set by the load runner around each operation. A task-local, because a scenario's
    /// clients (its LEMON and route store clients among them) are made once and shared by every operation in flight.
    @TaskLocal static var latest: Latest?

    /// Called with the headers of every answer a scenario's clients get.
    public static func note(_ answer: HTTPHeaders) {
        latest?.note(answer)
    }
}
