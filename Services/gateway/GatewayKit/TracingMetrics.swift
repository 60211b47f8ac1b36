import CustodianContracts

/// The tracing figures of `/metrics` in Prometheus text: whether each process exports spans, and how many it dropped
/// because the collector was slow or down (docs/operations.md, "Tracing"). A rising count means lost traces, never
/// slower requests: the exporter does not hold a request up.
enum TracingMetrics {
    static func render(_ totals: [SystemMethods.TracingTotals]) -> String {
        let families: [(name: String, type: String, help: String, value: (SystemMethods.TracingTotals) -> Int)] = [
            (
                "custodian_trace_spans_dropped_total", "counter",
                "Spans finished but not exported (queue full or collector failing), per process", { $0.spansDropped }
            ),
            ("custodian_trace_exporting", "gauge", "Whether the process exports spans over OTLP (1) or not (0)", { $0.exporting ? 1 : 0 }),
        ]
        var text = ""
        for family in families {
            text += "# HELP \(family.name) \(family.help)\n# TYPE \(family.name) \(family.type)\n"
            for total in totals { text += "\(family.name)\(labels(total)) \(family.value(total))\n" }
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
