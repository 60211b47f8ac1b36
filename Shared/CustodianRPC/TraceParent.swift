import Tracing

/// How a span's context crosses a process boundary: as a W3C `traceparent` (https://www.w3.org/TR/trace-context/),
/// in the gateway's answer and in every RPC call's context. The process's tracer reads and writes it, so that a
/// traceparent that is not valid W3C starts a new trace instead of continuing it.
public enum TraceParent {
    /// The `traceparent` naming `context`'s span; nil when the process has no tracer (tools, tests).
    public static func of(_ context: InstrumentationContext) -> String? {
        var headers: [String: String] = [:]
        InstrumentationSystem.instrument.inject(context, into: &headers, using: HeaderInjector())
        return headers["traceparent"]
    }

    /// A context whose span continues `traceparent` (and `tracestate`), or an empty one to start a trace in.
    public static func context(traceparent: String?, tracestate: String? = nil) -> InstrumentationContext {
        var context = InstrumentationContext.topLevel
        guard let traceparent else { return context }
        var headers = ["traceparent": traceparent]
        headers["tracestate"] = tracestate
        InstrumentationSystem.instrument.extract(headers, into: &context, using: HeaderExtractor())
        return context
    }

    /// The trace id in a `traceparent` (its 32 hexadecimal digits), or nil when it is no traceparent.
    public static func traceID(of traceparent: String) -> String? {
        let fields = traceparent.split(separator: "-", omittingEmptySubsequences: false)
        guard fields.count >= 4, fields[1].utf8.count == 32 else { return nil }
        return String(fields[1])
    }

    struct HeaderInjector: Injector {
        func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
    }

    struct HeaderExtractor: Extractor {
        func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
    }
}
