import CustodianRuntime
import Foundation
import Testing

/// `custodian up` when it cannot work: it says why and stops, instead of announcing a platform that is not its own
/// or restarting a process that cannot start for ever.
@Suite("custodian up: a first start that cannot work")
struct UpStartupTests {
    static func binaries() throws -> String { try RunningPlatform.binaryDirectory() }

    @Test func aPortInUseIsRefusedBeforeAnythingStarts() async throws {
        // Another server listens on the port.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 8) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let data = "/tmp/cit-port-\(UUID().uuidString.prefix(8).lowercased())"
        defer { try? FileManager.default.removeItem(atPath: data) }
        let started = ContinuousClock.now
        let up = try await RunningPlatform.run(try Self.binaries() + "/custodian", ["up", "--data-dir", data, "--port", String(port), "--no-demo"])
        #expect(up.status != 0)
        #expect(up.output.contains("port \(port) on 127.0.0.1 is in use by another program"), "\(up.output)")
        #expect(!up.output.contains("custodian ready"))
        #expect(!up.output.contains("postgres "), "it started PostgreSQL first: \(up.output)")
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    /// Tracing settings that cannot work are refused with the reason before anything starts, not met by a crash.
    @Test func tracingSettingsThatCannotWorkAreRefused() async throws {
        let data = "/tmp/cit-otlp-\(UUID().uuidString.prefix(8).lowercased())"
        defer { try? FileManager.default.removeItem(atPath: data) }
        for (arguments, expected) in [
            (["--otlp", "collector:4318"], "--otlp takes the collector's OTLP/HTTP address, such as http://127.0.0.1:4318"),
            (["--trace-sampling", "2"], "--trace-sampling takes a share from 0 to 1, such as 0.01"),
        ] {
            let up = try await RunningPlatform.run(
                try Self.binaries() + "/custodian", ["up", "--data-dir", data, "--port", String(try FreePort.find()), "--no-demo"] + arguments)
            #expect(up.status != 0 && up.output.contains(expected), "\(arguments): \(up.output)")
            #expect(!up.output.contains("postgres "), "it started PostgreSQL first: \(up.output)")
        }
        // A process told to export over gRPC, which is not built in, says so and exits (swift-otel would trap).
        let gateway = try await RunningPlatform.run(
            try Self.binaries() + "/gateway", [],
            environment: [
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "CUSTODIAN_INSECURE_HTTP": "1",
                "CUSTODIAN_HTTP_PORT": String(try FreePort.find()),
            ])
        #expect(gateway.status == 2, "\(gateway.output)")
        #expect(
            gateway.output.contains("gateway: OTEL_EXPORTER_OTLP_PROTOCOL is 'grpc': only OTLP over HTTP is built in (http/protobuf or http/json)"),
            "\(gateway.output)")
    }

    @Test func aProgramThatCannotStartStopsEverythingWithItsReason() async throws {
        let data = "/tmp/cit-fail-\(UUID().uuidString.prefix(8).lowercased())"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: data)  // PostgreSQL runs as its own user under root
        defer { try? FileManager.default.removeItem(atPath: data) }
        // A setting the gateway refuses at start: it exits at once, every time.
        let up = try await RunningPlatform.run(
            try Self.binaries() + "/custodian",
            ["up", "--data-dir", data + "/.custodian", "--port", String(try FreePort.find()), "--no-demo", "--restart-delay", "0.2"],
            environment: ["CUSTODIAN_HTTP_MAX_HEADER_SIZE": "7"])
        #expect(up.status != 0)
        #expect(up.output.contains("gateway exited 5 times in a row within 10 s of starting"), "\(up.output)")
        #expect(up.output.contains("CUSTODIAN_HTTP_MAX_HEADER_SIZE"), "the gateway's own reason is not shown: \(up.output)")
        #expect(up.output.contains("postgres   stopped"), "\(up.output)")
        #expect(!up.output.contains("custodian ready"))
    }
}
