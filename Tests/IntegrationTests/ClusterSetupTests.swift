import CustodianContracts
import CustodianRPC
import CustodianRuntime
import Foundation
import Logging
import ServiceLifecycle
import Testing

/// `custodian setup` for machines that call each other over TCP: a cluster CA and, per process, the material for
/// mutual TLS, which the processes read as `CUSTODIAN_RPC_TLS_*_FILE`.
@Suite("Setup: RPC certificates for a cluster", .runningPlatform)
struct ClusterSetupTests {
    @Test func setupIssuesEachProcessACertificateItsCalleesAccept() async throws {
        let platform = try platform
        let secrets = "/tmp/cit-secrets-\(UUID().uuidString.prefix(8).lowercased())"
        defer { try? FileManager.default.removeItem(atPath: secrets) }
        func setup() async throws {
            let (status, output) = try await RunningPlatform.run(
                platform.binaries + "/custodian",
                [
                    "setup", "--database-url", try platform.adminDatabaseURL, "--secrets-dir", secrets, "--rpc-domain", "custodian.svc.cluster.local",
                ])
            #expect(status == 0, "\(output)")
        }
        try await setup()
        for process in Platform.services + ["gateway"] {
            for file in ["ca.pem", "cert.pem", "key.pem"] {
                #expect(FileManager.default.fileExists(atPath: "\(secrets)/\(process)/rpc/\(file)"), "\(process)/rpc/\(file)")
            }
            #expect(!FileManager.default.fileExists(atPath: "\(secrets)/\(process)/rpc/ca-key.pem"))
        }
        let key = try FileManager.default.attributesOfItem(atPath: "\(secrets)/devices/rpc/key.pem")
        #expect((key[.posixPermissions] as? Int) == 0o600)
        let issued = try String(contentsOfFile: "\(secrets)/devices/rpc/cert.pem", encoding: .utf8)
        // Run again: what was issued stays.
        try await setup()
        #expect(try String(contentsOfFile: "\(secrets)/devices/rpc/cert.pem", encoding: .utf8) == issued)

        // A `devices` replica on TCP with its material, as a deployment configures it; the gateway's is accepted.
        func material(_ process: String) throws -> Configuration {
            try Configuration(
                environment: [
                    RuntimeKey.rpcTLSCA + "_FILE": "\(secrets)/\(process)/rpc/ca.pem",
                    RuntimeKey.rpcTLSCertificate + "_FILE": "\(secrets)/\(process)/rpc/cert.pem",
                    RuntimeKey.rpcTLSKey + "_FILE": "\(secrets)/\(process)/rpc/key.pem",
                ], arguments: [])
        }
        var methods = RPCMethods()
        methods.register(SystemMethods.health) { _, _ in
            SystemMethods.Health(status: "ok", service: "devices", instance: "tls-test", database: "ok")
        }
        let logger = Logger(label: "cluster-setup-tests")
        let server = RPCServer(
            configuration: .init(
                endpoint: .tcp(host: "127.0.0.1", port: 0), tls: try RPCTLS(configuration: material("devices")),
                allowedCallers: Platform.callers["devices"]),
            methods: methods, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [.init(service: server)], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let port = try #require(try await server.listeningAddress().port)
            func health(as process: String) async throws -> SystemMethods.Health {
                var configuration = try material(process)
                configuration.set(RuntimeKey.endpoints(of: "devices"), "tcp://127.0.0.1:\(port)")
                let client = try RPCClient.platform(for: ["devices"], configuration: configuration, logger: logger)
                defer { client.shutdown() }
                return try await client.call(SystemMethods.health, on: "devices", context: .background("tls-test", timeout: 20))
            }
            #expect(try await health(as: "gateway").instance == "tls-test")
            // `links` holds a certificate of the same cluster, but does not call `devices`.
            await #expect(throws: RPCError.self) { try await health(as: "links") }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }

        // A real `devices` replica on TCP as a pod runs it, with setup's folder, and the exec probe run beside it
        // with the same environment: the replica accepts its own certificate's probe.
        let port = try FreePort.find()
        func environment(_ process: String) -> [String: String] {
            [
                "CUSTODIAN_LISTEN": "tcp://0.0.0.0:\(port)", "CUSTODIAN_INSTANCE": "devices-tcp",
                "CUSTODIAN_DATABASE_URL_FILE": "\(secrets)/devices/database.url", "CUSTODIAN_SEALING_KEY_FILE": "\(secrets)/devices/sealing-key",
                "CUSTODIAN_LINKS_ENDPOINTS": "tcp://127.0.0.1:9",
                "CUSTODIAN_RPC_TLS_CA_FILE": "\(secrets)/\(process)/rpc/ca.pem",
                "CUSTODIAN_RPC_TLS_CERTIFICATE_FILE": "\(secrets)/\(process)/rpc/cert.pem",
                "CUSTODIAN_RPC_TLS_KEY_FILE": "\(secrets)/\(process)/rpc/key.pem",
            ]
        }
        let replica = Process()
        replica.executableURL = URL(fileURLWithPath: platform.binaries + "/devices")
        replica.environment = ProcessInfo.processInfo.environment.merging(environment("devices")) { $1 }
        replica.standardOutput = FileHandle.nullDevice
        replica.standardError = FileHandle.nullDevice
        try replica.run()
        defer {
            replica.terminate()
            replica.waitUntilExit()
        }
        var ready = try await RunningPlatform.run(platform.binaries + "/devices", ["--probe", "ready"], environment: environment("devices"))
        let deadline = ContinuousClock.now + .seconds(30)
        while ready.status != 0, replica.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            ready = try await RunningPlatform.run(platform.binaries + "/devices", ["--probe", "ready"], environment: environment("devices"))
        }
        #expect(ready.status == 0 && ready.output.contains("devices devices-tcp: ready"), "\(ready)")
        // The probe of another process's folder is a caller `devices` does not accept.
        let stranger = try await RunningPlatform.run(platform.binaries + "/devices", ["--probe", "live"], environment: environment("links"))
        #expect(stranger.status == 1, "\(stranger)")
    }
}
