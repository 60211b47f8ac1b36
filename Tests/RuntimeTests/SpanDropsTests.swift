import Logging
import Testing
@testable import CustodianTracing

/// Dropped spans are counted from what swift-otel tells its diagnostic logger (docs/operations.md, "Tracing"), and every
/// such line still reaches the process's log.
@Suite("Dropped spans")
struct SpanDropsTests {
    final class Lines: @unchecked Sendable {
        var messages: [String] = []
    }

    struct Recording: LogHandler {
        let lines: Lines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { lines.messages.append(event.message.description) }
    }

    @Test func aFullQueueAndAFailedBatchAreCountedAndStillLogged() {
        let lines = Lines()
        let processLog = Logger(label: "test") { _ in Recording(lines: lines) }
        var diagnostic = SpanDrops.countingLogger(forwardingTo: processLog)
        let before = SpanDrops.total
        diagnostic.warning("Spans were dropped this iteration because queue was full", metadata: ["dropped_count": "7", "queue_size": "2048"])
        // A failed export names its batch's size in the logger's metadata, as swift-otel's processor sets it.
        diagnostic[metadataKey: "batch_size"] = "12"
        diagnostic.warning("Failed to export batch.")
        // Other lines count nothing.
        diagnostic.warning("Exported batch.")
        #expect(SpanDrops.total - before == 19)
        #expect(lines.messages.count == 3)
        #expect(lines.messages.allSatisfy { $0.hasPrefix("tracing: ") })
    }
}
