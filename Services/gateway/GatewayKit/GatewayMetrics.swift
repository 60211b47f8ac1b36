import CustodianContracts
import Foundation
import Prometheus
import Synchronization

/// Prometheus figures the gateway exposes on `/metrics`: per route, requests counted by status and their
/// latency; per service, RPC latency by method and outcome. Kept in the gateway's own registry rather
/// than a process-wide metrics system, so that several gateways in one test process don't collide.
public final class GatewayMetrics: Sendable {
    let registry: PrometheusCollectorRegistry

    private static let latencyBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]

    /// The server's connections: how many are open, and how many were closed for being surplus or too slow.
    let connections: ConnectionCensus
    /// The last hour's requests, for the console.
    let recent = RecentRequests()

    /// Each request's counter and histograms, found by their labels without building the registry's descriptors
    /// and label lists again (a visible share of a small request's time).
    private let requestMetrics = Mutex<[RequestLabels: (count: Counter, duration: DurationHistogram)]>([:])
    private let rpcMetrics = Mutex<[RPCLabels: DurationHistogram]>([:])

    private struct RequestLabels: Hashable {
        var route: String, method: String, status: Int
    }

    private struct RPCLabels: Hashable {
        var service: String, method: String, outcome: String
    }

    public init() {
        let registry = PrometheusCollectorRegistry()
        self.registry = registry
        func closed(_ reason: String) -> Counter {
            registry.makeCounter(
                descriptor: .init(
                    metricName: "custodian_http_connections_closed", unitName: "total",
                    helpText: "Client connections the gateway closed: over the connection limit, or too slow"),
                labels: [("reason", reason)])
        }
        connections = ConnectionCensus(
            refused: closed("over_limit"), closedForHeader: closed("header_timeout"), closedForBody: closed("body_timeout"),
            closedIdle: closed("idle_timeout"))
    }

    /// Whether the rate limits are on (`CUSTODIAN_RATE_LIMITS`): `custodian loadgen` reads it to say at start which
    /// setting a load from one address needs.
    func recordRateLimits(enabled: Bool) {
        registry.makeGauge(
            descriptor: .init(
                metricName: "custodian_rate_limits_enabled", unitName: "",
                helpText: "1 when the gateway's rate limits are on (CUSTODIAN_RATE_LIMITS), 0 when off")
        ).set(Int64(enabled ? 1 : 0))
    }

    func recordRateLimited(rateClass: String, scope: String) {
        registry.makeCounter(
            descriptor: .init(
                metricName: "custodian_rate_limited", unitName: "total",
                helpText: "Requests refused with 429 by the gateway's rate limits, by route class and bucket"),
            labels: [("class", rateClass), ("bucket", scope)]
        ).increment()
    }

    /// A client may send any token as its method: others count as `OTHER`, so that they cannot grow the metrics.
    private static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    func recordRequest(route: String, method: String, status: Int, duration: Duration) {
        let method = Self.methods.contains(method) ? method : "OTHER"
        let labels = RequestLabels(route: route, method: method, status: status)
        let metrics = Self.cached(labels, in: requestMetrics) {
            (
                count: registry.makeCounter(
                    descriptor: .init(metricName: "custodian_http_requests", unitName: "total", helpText: "HTTP requests by route and status"),
                    labels: [("route", route), ("method", method), ("status", String(status))]),
                duration: registry.makeDurationHistogram(
                    descriptor: .init(metricName: "custodian_http_request_duration", unitName: "seconds", helpText: "HTTP request latency by route"),
                    labels: [("route", route), ("method", method)],
                    buckets: Self.latencyBuckets)
            )
        }
        metrics.count.increment()
        metrics.duration.record(duration)
        recent.record(status: status)
    }

    func recordRPC(service: String, method: String, seconds: Double, outcome: String) {
        let labels = RPCLabels(service: service, method: method, outcome: outcome)
        let histogram = Self.cached(labels, in: rpcMetrics) {
            registry.makeDurationHistogram(
                descriptor: .init(metricName: "custodian_rpc_duration", unitName: "seconds", helpText: "RPC latency by service, method and outcome"),
                labels: [("service", service), ("method", method), ("outcome", outcome)],
                buckets: Self.latencyBuckets)
        }
        histogram.record(.nanoseconds(Int64(seconds * 1e9)))
    }

    /// The metric of `labels`, made the first time they are seen.
    private static func cached<Labels: Hashable & Sendable, Metric: Sendable>(
        _ labels: Labels, in cache: borrowing Mutex<[Labels: Metric]>, make: () -> Metric
    ) -> Metric {
        cache.withLock { cache in
            if let known = cache[labels] { return known }
            let made = make()
            cache[labels] = made
            return made
        }
    }

    /// The audit log's head as last published; its hash is a label, so it is written out here rather than kept as one
    /// more series in the registry per head.
    let auditHead = Mutex<AuditHead?>(nil)

    func render() -> String {
        registry.makeGauge(
            descriptor: .init(metricName: "custodian_http_connections_open", unitName: "", helpText: "Open client connections")
        ).set(Int64(connections.open.load(ordering: .relaxed)))
        var text = registry.emitToString()
        if let head = auditHead.withLock({ $0 }) {
            text += """
                # HELP custodian_audit_head The audit log's last entry: its sequence number as the value, its hash as a label
                # TYPE custodian_audit_head gauge
                custodian_audit_head{hash="\(head.hash)"} \(head.seq)

                """
        }
        return text
    }
}
