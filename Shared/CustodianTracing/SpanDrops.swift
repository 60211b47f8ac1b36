import Logging
import Synchronization

/// How many finished spans this process dropped instead of exporting: because the queue was full (the collector is
/// slow) or because a batch could not be sent (the collector is down or refused it). /metrics shows it as
/// `custodian_trace_spans_dropped_total`.
///
/// swift-otel counts neither in public; it reports both to its diagnostic logger, with the number of spans as
/// metadata (`dropped_count` for a full queue, `batch_size` for a batch that failed). ``countingLogger(forwardingTo:)``
/// is that logger: it adds those numbers up and passes every line on to the process's log.
public enum SpanDrops {
    private static let dropped = Atomic<Int>(0)

    public static var total: Int { dropped.load(ordering: .relaxed) }

    static func add(_ count: Int) {
        dropped.add(count, ordering: .relaxed)
    }

    static func countingLogger(forwardingTo logger: Logger) -> Logger {
        var counting = Logger(label: "otel") { _ in CountingHandler(forwardTo: logger) }
        counting.logLevel = .warning
        return counting
    }

    /// The messages swift-otel 1.x logs when it drops spans, and the metadata key that says how many.
    static let dropMessages: [String: String] = [
        "Spans were dropped this iteration because queue was full": "dropped_count",
        "Failed to export batch.": "batch_size",
    ]

    struct CountingHandler: LogHandler {
        var forwardTo: Logger
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .warning

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { _, new in new }
            if let key = SpanDrops.dropMessages[event.message.description], let value = all[key], let count = Int("\(value)") {
                SpanDrops.add(count)
            }
            forwardTo.log(level: event.level, "tracing: \(event.message)", metadata: all, source: event.source)
        }
    }
}
