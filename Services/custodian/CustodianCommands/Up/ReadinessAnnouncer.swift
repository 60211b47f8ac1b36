import AsyncHTTPClient
import Foundation
import NIOSSL
import ServiceLifecycle

/// Prints `custodian ready: <url>` once the gateway's `/readyz` says every service is ready, after loading
/// the demo data when this is a new data directory.
struct ReadinessAnnouncer: Service {
    let url: String
    let adminToken: String
    /// Where to note that the demo data is loaded; nil when it is not to be loaded.
    let demoMarker: String?

    func run() async throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none  // our own self-signed certificate, on loopback
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
        await waitUntilReady(client)
        try? await client.shutdown()
    }

    private func waitUntilReady(_ client: HTTPClient) async {
        let started = ContinuousClock.now
        while !Task.isCancelled {
            if let response = try? await client.execute(HTTPClientRequest(url: url + "/readyz"), timeout: .seconds(2)),
                response.status == .ok
            {
                if let demoMarker {
                    do {
                        let summary = try await DemoData(client: client, baseURL: url, adminToken: adminToken).load()
                        try Files.write(summary, to: demoMarker, mode: 0o644)
                        TerminalOutput.say("demo       \(summary)")
                    } catch {
                        TerminalOutput.warn("custodian: the demo data could not be loaded: \(error)")
                    }
                }
                TerminalOutput.say("custodian ready: \(url)")
                return
            }
            if ContinuousClock.now - started > .seconds(120) {
                TerminalOutput.warn("custodian: the platform is not ready after 2 minutes; see the logs")
                return
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
    }
}
