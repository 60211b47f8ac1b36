import CustodianContracts

/// The tracing figures of `/metrics` in Prometheus text: whether each process exports spans, and how many it dropped
/// because the collector was slow or down (docs/operations.md, "Tracing"). A rising count means lost traces, never
/// slower requests: the exporter does not hold a request up.
enum TracingMetrics {
    static func render(_ totals: [SystemMethods.TracingTotals]) -> String {
        var text = """
            # HELP custodian_trace_spans_dropped_total Spans finished but not exported (queue full or collector failing), per process
            # TYPE custodian_trace_spans_dropped_total counter

            """
        for total in totals {
            text += "custodian_trace_spans_dropped_total\(labels(total)) \(total.spansDropped)\n"
        }
        text += """
            # HELP custodian_trace_exporting Whether the process exports spans over OTLP (1) or not (0)
            # TYPE custodian_trace_exporting gauge

            """
        for total in totals {
            text += "custodian_trace_exporting\(labels(total)) \(total.exporting ? 1 : 0)\n"
        }
        return text
    }

    private static func labels(_ total: SystemMethods.TracingTotals) -> String {
        "{service=\"\(escaped(total.service))\",instance=\"\(escaped(total.instance))\"}"
    }

    /// Prometheus label values escape backslash, double quote and newline.
    private static func escaped(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
    }
}
