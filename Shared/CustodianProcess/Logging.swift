import CustodianTracing
import Foundation
import Logging
import Synchronization

public enum CustodianLogging {
    /// Sets up swift-log once per process: readable lines in development, JSON lines everywhere else.
    public static func bootstrap(service: String, configuration: Configuration) -> Logger {
        let level = configuration[RuntimeKey.logLevel].flatMap(Logger.Level.init(rawValue:)) ?? .info
        let development = configuration.string(RuntimeKey.environment, default: "development") == "development"
        // Each line logged while a span is current gets its trace and span ids (docs/operations.md, "Tracing").
        LoggingSystem.bootstrap(
            { label, metadataProvider in
                var handler = StandardErrorLogHandler(label: label, format: development ? .readable : .jsonLines)
                handler.logLevel = level
                handler.metadataProvider = metadataProvider
                return handler
            }, metadataProvider: ProcessTracing.logMetadata)
        var logger = Logger(label: service)
        logger[metadataKey: "service"] = .string(service)
        return logger
    }
}

/// Log lines on standard error, as a person reads them in development
/// (`2026-11-24T18:00:00+0000 info gateway: method=POST route=/upload request`) or as one JSON object per line
/// everywhere else (`{"ts","level","label","message",…metadata}`). swift-log's `StreamLogHandler` formats all metadata
/// each time a key is set, and every request sets two (the request ids): here only lines actually written are formatted.
public struct StandardErrorLogHandler: LogHandler {
    public enum Format: Sendable {
        case readable, jsonLines
    }

    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let format: Format

    public init(label: String, format: Format) {
        self.label = label
        self.format = format
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty { merged.merge(provided) { _, new in new } }
        if let given = event.metadata { merged.merge(given) { _, new in new } }
        let line: Data?
        switch format {
        case .readable: line = readableLine(event, metadata: merged)
        case .jsonLines: line = jsonLine(event, metadata: merged)
        }
        guard let line else { return }
        Self.output.withLock { _ in FileHandle.standardError.write(line) }
    }

    private static let output = Mutex(())

    private func readableLine(_ event: LogEvent, metadata: Logger.Metadata) -> Data {
        let fields = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let timestamp = Date.ISO8601FormatStyle(includingFractionalSeconds: false).format(Date())
        return Data("\(timestamp) \(event.level) \(label):\(fields.isEmpty ? "" : " " + fields) \(event.message)\n".utf8)
    }

    private func jsonLine(_ event: LogEvent, metadata: Logger.Metadata) -> Data? {
        var fields: [String: Any] = [
            "ts": Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date()),
            "level": event.level.rawValue,
            "label": label,
            "message": event.message.description,
        ]
        for (key, value) in metadata where fields[key] == nil {
            fields[key] = Self.plain(value)
        }
        guard var line = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) else { return nil }
        line.append(0x0A)
        return line
    }

    private static func plain(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let string): string
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): values.map(plain)
        case .dictionary(let values): values.mapValues(plain)
        }
    }
}
