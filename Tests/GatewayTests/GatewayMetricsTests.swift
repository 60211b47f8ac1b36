import Testing
@testable import GatewayKit

@Suite("Gateway metrics")
struct GatewayMetricsTests {
    @Test func requestsAreCountedPerRouteMethodAndStatus() {
        let metrics = GatewayMetrics()
        metrics.recordRequest(route: "/upload", method: "POST", status: 400, duration: .microseconds(300))
        metrics.recordRequest(route: "/upload", method: "POST", status: 400, duration: .microseconds(300))
        metrics.recordRequest(route: "/upload", method: "POST", status: 200, duration: .milliseconds(3))
        let text = metrics.render()
        #expect(text.contains(#"custodian_http_requests_total{route="/upload",method="POST",status="400"} 2"#))
        #expect(text.contains(#"custodian_http_requests_total{route="/upload",method="POST",status="200"} 1"#))
        #expect(text.contains(#"custodian_http_request_duration_seconds_count{route="/upload",method="POST"} 3"#))
    }

    @Test func methodsAClientMakesUpShareOneLabel() {
        let metrics = GatewayMetrics()
        for index in 0..<50 {
            metrics.recordRequest(route: "unmatched", method: "BREW\(index)", status: 404, duration: .microseconds(100))
        }
        let text = metrics.render()
        #expect(text.contains(#"custodian_http_requests_total{route="unmatched",method="OTHER",status="404"} 50"#))
        #expect(!text.contains("BREW"))
    }

    @Test func rpcCallsAreTimedPerServiceMethodAndOutcome() {
        let metrics = GatewayMetrics()
        metrics.recordRPC(service: "devices", method: "devices.opensense.upload", seconds: 0.001, outcome: "ok")
        metrics.recordRPC(service: "devices", method: "devices.opensense.upload", seconds: 0.002, outcome: "ok")
        #expect(
            metrics.render().contains(#"custodian_rpc_duration_seconds_count{service="devices",method="devices.opensense.upload",outcome="ok"} 2"#))
    }
}
