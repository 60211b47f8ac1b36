import Foundation
import Logging
import Synchronization

public enum CustodianLogging {
    /// Sets up swift-log once per process: readable lines in development, JSON lines everywhere else.
    public static func bootstrap(service: String, configuration: Configuration) -> Logger {
        let level = configuration[RuntimeKey.logLevel].flatMap(Logger.Level.init(rawValue:)) ?? .info
        let development = configuration.string(RuntimeKey.environment, default: "development") == "development"
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler = development
                ? ReadableLogHandler(label: label)
                : JSONLinesLogHandler(label: label)
            handler.logLevel = level
            return handler
        }
        var logger = Logger(label: service)
        logger[metadataKey: "service"] = .string(service)
        return logger
    }
}

/// Lines for a person on standard error: `2026-11-24T18:00:00+0000 info gateway: method=POST route=/upload request`.
/// swift-log's `StreamLogHandler` writes the same, but formats the metadata each time a key is set; every request
/// sets two (the request ids), so the formatting is left to the lines actually written.
public struct ReadableLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let label: String

    public init(label: String) {
        self.label = label
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let line = "\(Self.timestamp()) \(event.level) \(label):\(fields.isEmpty ? "" : " " + fields) \(event.message)\n"
        Self.output.withLock { _ in FileHandle.standardError.write(Data(line.utf8)) }
    }

    private static let output = Mutex(())

    private static func timestamp() -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: false).format(Date())
    }
}

/// One JSON object per line on standard error: `{"ts","level","label","message",…metadata}`.
public struct JSONLinesLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let label: String

    public init(label: String) {
        self.label = label
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: Any] = [
            "ts": Self.timestamp(),
            "level": event.level.rawValue,
            "label": label,
            "message": event.message.description,
        ]
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        for (key, value) in merged where fields[key] == nil {
            fields[key] = Self.plain(value)
        }
        guard var line = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) else { return }
        line.append(0x0A)
        Self.output.withLock { _ in FileHandle.standardError.write(line) }
    }

    private static let output = Mutex(())

    private static func timestamp() -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date())
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
