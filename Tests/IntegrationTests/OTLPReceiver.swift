import Foundation
import Testing

/// An OpenTelemetry collector of the tests' own: `Deploy/dev/otlp/receiver.py`, which decodes OTLP/HTTP exports with
/// `opentelemetry-proto` from PyPI (in the tools' virtual environment, `Deploy/dev/python-tools.sh`) and writes one JSON
/// line per span.
final class OTLPReceiver: Sendable {
    let port: Int
    let spansFile: String
    private let process: Process

    private init(port: Int, spansFile: String, process: Process) {
        self.port = port
        self.spansFile = spansFile
        self.process = process
    }

    static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// Starts one on `port` (any free one when 0), appending to `spansFile`; one that is `slow` holds each export that
    /// many seconds before it answers.
    static func start(port: Int = 0, spansFile: String? = nil, slow: Double = 0) async throws -> OTLPReceiver {
        let spansFile = spansFile ?? NSTemporaryDirectory() + "cit-spans-\(UUID().uuidString.prefix(8)).jsonl"
        let outputFile = spansFile + ".out"
        _ = FileManager.default.createFile(atPath: outputFile, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputFile))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            "-c",
            #"source Deploy/dev/python-tools.sh >&2 && exec "$tools/python" Deploy/dev/otlp/receiver.py --port "$1" --out "$2" --delay "$3""#,
            "receiver", String(port), spansFile, String(slow),
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: repositoryRoot)
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // The first run installs the tools' venv (pip), which takes a while.
        let deadline = ContinuousClock.now + .seconds(300)
        while true {
            let text = (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening ") }), let bound = Int(line.dropFirst(10)) {
                return OTLPReceiver(port: bound, spansFile: spansFile, process: process)
            }
            guard process.isRunning, ContinuousClock.now < deadline else {
                if process.isRunning { process.terminate() }
                throw PlatformError("the OTLP receiver did not start:\n\(text)")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// Stops it as a collector that goes down would: the port refuses connections from then on.
    func stop() async {
        // SIGKILL, which nothing blocks or handles: the collector is gone at once.
        kill(process.processIdentifier, SIGKILL)
        while process.isRunning { try? await Task.sleep(for: .milliseconds(50)) }
    }

    /// Every span received so far.
    func spans() -> [ReceivedSpan] {
        let text = (try? String(contentsOfFile: spansFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]).map(ReceivedSpan.init)
        }
    }

    /// The spans of one trace, once `complete` says they are all there (the processes export every 100 ms here).
    func trace(_ traceID: String, until complete: ([ReceivedSpan]) -> Bool) async throws -> [ReceivedSpan] {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let spans = spans().filter { $0.traceID == traceID }
            if complete(spans) { return spans }
            guard ContinuousClock.now < deadline else { return spans }
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}

/// One span as the receiver wrote it.
struct ReceivedSpan: CustomStringConvertible {
    var traceID: String
    var spanID: String
    var parentSpanID: String
    var name: String
    var kind: String
    var attributes: [String: Any]
    var resource: [String: Any]
    var events: [[String: Any]]

    init(_ json: [String: Any]) {
        traceID = json["trace_id"] as? String ?? ""
        spanID = json["span_id"] as? String ?? ""
        parentSpanID = json["parent_span_id"] as? String ?? ""
        name = json["name"] as? String ?? ""
        kind = json["kind"] as? String ?? ""
        attributes = json["attributes"] as? [String: Any] ?? [:]
        resource = json["resource"] as? [String: Any] ?? [:]
        events = json["events"] as? [[String: Any]] ?? []
    }

    var service: String { resource["service.name"] as? String ?? "" }
    var instance: String { resource["service.instance.id"] as? String ?? "" }
    func attribute(_ key: String) -> String? { attributes[key].map { "\($0)" } }

    var description: String { "\(service) \(kind) \(name) \(spanID)←\(parentSpanID)" }
}

extension [ReceivedSpan] {
    func parent(of span: ReceivedSpan) -> ReceivedSpan? { first { $0.spanID == span.parentSpanID } }

    /// Whether `ancestor` is on `span`'s path to the root.
    func descends(_ span: ReceivedSpan, from ancestor: ReceivedSpan) -> Bool {
        var current = span
        for _ in 0..<count {
            guard let up = parent(of: current) else { return false }
            if up.spanID == ancestor.spanID { return true }
            current = up
        }
        return false
    }

    /// A service's server span for an RPC method, called by the span of `caller`, and the caller's client span.
    func call(of method: String, on service: String) -> (client: ReceivedSpan, server: ReceivedSpan)? {
        guard let server = first(where: { $0.service == service && $0.kind == "SERVER" && $0.name == method }),
            let client = parent(of: server), client.kind == "CLIENT"
        else { return nil }
        return (client, server)
    }

    /// The SQL statements a service's span ran, at any depth below it.
    func statements(under span: ReceivedSpan) -> [ReceivedSpan] {
        filter { $0.attribute("db.system.name") == "postgresql" && $0.service == span.service && descends($0, from: span) }
    }

    /// Whether every span of the trace has arrived: one root, the gateway's server span for `route` (its parent, if
    /// any, is the client's), and every other span's parent among them. Each process exports on its own, and the
    /// request's own span ends last, so a trace arrives in parts.
    func isWhole(rootedAt route: String) -> Bool {
        let ids = Set(map(\.spanID))
        let roots = filter { !ids.contains($0.parentSpanID) }
        return roots.count == 1 && roots[0].name == route && roots[0].kind == "SERVER"
    }

    var tree: String { map(\.description).sorted().joined(separator: "\n") }
}
