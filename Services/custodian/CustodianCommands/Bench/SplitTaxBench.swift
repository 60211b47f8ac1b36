import CustodianLoad
import Foundation

/// The RPC hop's cost: the same refusal served by a bare Hummingbird app here, and by `devices` behind the gateway.
struct SplitTaxBench {
    let connection: ServerConnection
    let duration: Duration
    /// How many times each side is measured, in turn.
    static let slices = 5

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    func run() async throws -> BenchReport.SplitTax {
        let certificate = connection.server.hasPrefix("https") ? connection.dataDir + "/tls/cert.pem" : nil
        let key = connection.server.hasPrefix("https") ? connection.dataDir + "/tls/key.pem" : nil
        let tls = try LoadClient.tlsConfiguration(caFile: certificate, insecure: connection.insecure)
        return try await BaselineServer.withProcess(certificate: certificate, key: key) { baseURL in
            // wrk's closed loop, not the flows' client: a small request costs AsyncHTTPClient more than it costs a server.
            let local = try FixedRequestLoad.Target(url: baseURL, tls: tls, method: .POST, path: "/upload", body: "{}", expectedStatus: 400)
            let platform = try FixedRequestLoad.Target(
                url: connection.server, tls: tls, method: .POST, path: "/upload", body: "{}", expectedStatus: 400)
            func measure(_ target: FixedRequestLoad.Target, concurrency: Int, for length: Duration) async throws -> LatencySummary {
                try await FixedRequestLoad.run(target, connections: concurrency, duration: length)
            }
            // Side by side in alternating slices, and each figure the median over the slices (the added latency the
            // median of each slice pair's difference): a machine that slows down for a while slows both sides alike.
            let slice = duration / Self.slices
            var throughput: [(inProcess: Double, gateway: Double)] = []
            var single: [(inProcess: Double, gateway: Double)] = []
            var errors = 0
            for _ in 0..<Self.slices {
                let (inProcess, gateway) = (
                    try await measure(local, concurrency: 16, for: slice), try await measure(platform, concurrency: 16, for: slice)
                )
                throughput.append((inProcess.throughput, gateway.throughput))
                let (inProcessSingle, gatewaySingle) = (
                    try await measure(local, concurrency: 1, for: slice), try await measure(platform, concurrency: 1, for: slice)
                )
                single.append((inProcessSingle.p50Milliseconds, gatewaySingle.p50Milliseconds))
                errors += inProcess.errors + gateway.errors + inProcessSingle.errors + gatewaySingle.errors
            }
            let inProcess = median(throughput.map(\.inProcess)), gateway = median(throughput.map(\.gateway))
            return BenchReport.SplitTax(
                inProcessPerSecond: inProcess, gatewayPerSecond: gateway,
                ratio: median(throughput.map { $0.inProcess > 0 ? $0.gateway / $0.inProcess : 0 }),
                inProcessP50Milliseconds: median(single.map(\.inProcess)), gatewayP50Milliseconds: median(single.map(\.gateway)),
                addedP50Microseconds: median(single.map { ($0.gateway - $0.inProcess) * 1000 }),
                errors: errors)
        }
    }
}
