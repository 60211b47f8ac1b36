import Foundation
import Logging
import OTel
import ServiceLifecycle
import Tracing

/// Each process's tracer (docs/operations.md, "Tracing"). Every process has one, so that every request gets a trace
/// id, which its log lines and the gateway's answer carry, whether or not spans are exported. Spans are recorded and
/// sent over OTLP/HTTP only when a collector is named (`OTEL_EXPORTER_OTLP_ENDPOINT` or
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), and then for the share of traces the sampler picks (`OTEL_TRACES_SAMPLER`,
/// `OTEL_TRACES_SAMPLER_ARG`; by default every trace a caller has not sampled out: `parentbased_always_on`).
///
/// The exporter never holds up a request: finished spans wait in a queue of 2,048 that a background task sends in
/// batches; when the collector is slow or down the queue fills and spans are dropped, which ``SpanDrops`` counts.
public struct ProcessTracing: Sendable {
    /// Whether spans are exported, and where to.
    public var endpoint: String?
    /// The process's name in the traces (`service.name`) and which replica it is (`service.instance.id`).
    public var service: String
    public var instance: String

    /// Reads the standard variables from `environment`; a variable set to the empty string counts as unset, as the
    /// compose file passes every one of them through whether the operator set it or not.
    public init(service: String, instance: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.service = service
        self.instance = instance
        let given = environment.filter { !$0.value.isEmpty }
        self.endpoint = given["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] ?? given["OTEL_EXPORTER_OTLP_ENDPOINT"]
        self.environment = given
    }

    private let environment: [String: String]

    /// Installs the tracer for the whole process and returns the service that exports its spans, to run in the
    /// process's service group (before its other parts, so that it stops last and sends what they finished).
    /// Throws when an `OTEL_` variable is set to something swift-otel cannot use.
    public func bootstrap(logger: Logger) throws -> any Service {
        var configuration = OTel.Configuration.default
        configuration.serviceName = service
        configuration.resourceAttributes = [
            "service.namespace": "custodian",
            "service.instance.id": instance,
        ]
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.enabled = true
        if endpoint == nil {
            // Trace ids for the logs and answers, and nothing recorded: a ratio sampler at 0 still gives every span
            // a fresh context, where `always_off` would give none.
            configuration.traces.exporter = .none
            configuration.traces.sampler = .traceIDRatio(ratio: 0) ?? .alwaysOff
        } else {
            configuration.traces.exporter = .otlp
            configuration.traces.otlpExporter.protocol = .httpProtobuf
        }
        configuration.diagnosticLogger = .custom(SpanDrops.countingLogger(forwardingTo: logger))
        configuration.diagnosticLogLevel = .warning
        var environment = self.environment
        if environment["OTEL_TRACES_SAMPLER"] == nil, environment["OTEL_TRACES_SAMPLER_ARG"] != nil {
            // A ratio alone means the ratio sampler (which the standard variables would otherwise ignore).
            environment["OTEL_TRACES_SAMPLER"] = "parentbased_traceidratio"
        }
        if endpoint == nil {
            // Nothing to export to: the sampler and exporter variables mean nothing without a collector.
            for key in ["OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG", "OTEL_TRACES_EXPORTER"] { environment[key] = nil }
        }
        return try OTel.bootstrap(configuration: configuration, environment: environment)
    }

    /// What log lines get from a span: `trace_id` and `span_id` (and `trace_flags`, 1 when the trace is recorded).
    public static var logMetadata: Logger.MetadataProvider { OTel.makeLoggingMetadataProvider() }
}
