import Foundation
import Synchronization
import Testing

@testable import CustodianCommands
@testable import CustodianRPC

/// `custodian rotate rpc-ca` (docs/operations.md, "Rotating the RPC certificates and the cluster CA"): after each step,
/// a process rolled onto the new files and one still on the files of the step before call each other over mutual TLS;
/// after the last, a certificate of the old CA is refused. Real TLS connections, as `MutualTLSTests` makes them.
@Suite("RPC over TCP: rotating the cluster CA")
struct RPCAuthorityRotationTests {
    let mutualTLS = MutualTLSTests()

    /// A process's mutual TLS as its `rpc/` folder holds it now.
    static func tls(_ secrets: String, _ process: String) throws -> RPCTLS {
        func read(_ file: String) throws -> String { try String(contentsOfFile: "\(secrets)/\(process)/rpc/\(file)", encoding: .utf8) }
        return try RPCTLS(caPEM: read("ca.pem"), certificatePEM: read("cert.pem"), keyPEM: read("key.pem"))
    }

    /// Whether a `gateway` with `client` reaches a `devices` replica with `server`.
    func calls(server: RPCTLS, client: RPCTLS) async throws -> Bool {
        let reached = Mutex(false)
        try await mutualTLS.withTLSServer(tls: server) { endpoint, _ in
            let client = mutualTLS.client(to: endpoint, tls: client)
            defer { client.shutdown() }
            let answered = (try? await mutualTLS.echo(client, timeout: 5)) != nil
            reached.withLock { $0 = answered }
        }
        return reached.withLock { $0 }
    }

    @Test func everyStepKeepsRolledAndUnrolledProcessesTalking() async throws {
        let secrets = NSTemporaryDirectory() + "rpc-ca-rotation-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: secrets) }
        try Deployment.rpcCertificates(secretsDirectory: secrets, domains: ["custodian.svc"])
        let rotation = RPCAuthorityRotation(secretsDirectory: secrets)
        // Out of order: refused, nothing changed.
        #expect(throws: CLIError.self) { try rotation.issue() }
        #expect(throws: CLIError.self) { try rotation.finish(at: Date()) }

        let before = (devices: try Self.tls(secrets, "devices"), gateway: try Self.tls(secrets, "gateway"))
        try rotation.begin()
        #expect(throws: CLIError.self) { try rotation.begin() }
        // `custodian setup` run again in the middle (as compose does at every `up`) keeps the overlap.
        try Deployment.rpcCertificates(secretsDirectory: secrets, domains: ["custodian.svc"])
        let begun = (devices: try Self.tls(secrets, "devices"), gateway: try Self.tls(secrets, "gateway"))
        #expect(try await calls(server: begun.devices, client: before.gateway))
        #expect(try await calls(server: before.devices, client: begun.gateway))
        // Finishing before every process holds a new certificate would cut them off.
        #expect(throws: CLIError.self) { try rotation.finish(at: Date()) }

        try rotation.issue()
        let issued = (devices: try Self.tls(secrets, "devices"), gateway: try Self.tls(secrets, "gateway"))
        #expect(
            try RPCAuthorityRotation.names(inPEM: String(contentsOfFile: secrets + "/devices/rpc/cert.pem", encoding: .utf8))
                == ["devices", "devices-rpc", "devices-rpc.custodian.svc"])
        #expect(try await calls(server: issued.devices, client: begun.gateway))
        #expect(try await calls(server: begun.devices, client: issued.gateway))

        try rotation.finish(at: Date())
        let finished = (devices: try Self.tls(secrets, "devices"), gateway: try Self.tls(secrets, "gateway"))
        #expect(try await calls(server: finished.devices, client: issued.gateway))
        #expect(try await calls(server: issued.devices, client: finished.gateway))
        // The old CA is out: its certificates are refused both ways.
        #expect(try await !calls(server: finished.devices, client: begun.gateway))
        #expect(try await !calls(server: begun.devices, client: finished.gateway))
        #expect(try await !calls(server: finished.devices, client: before.gateway))
        // And the old CA's key is kept aside, not in use.
        let kept = try FileManager.default.contentsOfDirectory(atPath: secrets + "/rpc-ca")
        #expect(kept.contains { $0.hasPrefix("retired-") } && !kept.contains("next"), "\(kept)")
    }
}
