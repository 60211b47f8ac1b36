import Foundation
import Testing

/// The container image ships one executable under every name (Deploy/Dockerfile): called as `gateway` it must be the
/// gateway, as `devices` the devices service, and under any other name the command line, as the eight executables are.
@Suite("multicall: one executable, every name")
struct MulticallTests {
    static let services = ["gateway", "auth", "vault", "routes", "devices", "statistics", "links"]

    @Test func eachNameRunsItsOwnProgram() async throws {
        let binaries = try RunningPlatform.binaryDirectory()
        let folder = NSTemporaryDirectory() + "multicall-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in Self.services + ["custodian"] {
            try FileManager.default.createSymbolicLink(atPath: "\(folder)/\(name)", withDestinationPath: binaries + "/multicall")
        }
        for name in Self.services {
            let linked = try await RunningPlatform.run("\(folder)/\(name)", ["--version"])
            let original = try await RunningPlatform.run("\(binaries)/\(name)", ["--version"])
            #expect(linked.status == 0 && linked.output.hasPrefix("\(name) "), "\(name): \(linked.output)")
            #expect(linked.output == original.output, "\(name)")
        }
        // Under its own name and any other, the command line, whose usage errors name it.
        for name in ["custodian", "multicall"] {
            let path = name == "custodian" ? "\(folder)/custodian" : "\(binaries)/multicall"
            let usage = try await RunningPlatform.run(path, ["vault", "open"])
            #expect(usage.status != 0 && usage.output.contains("Usage: custodian vault open"), "\(name): \(usage.output)")
        }
        // A service's own checks run, not the command line's: an unknown option is the service's refusal.
        let probe = try await RunningPlatform.run("\(folder)/devices", ["--probe", "sideways"])
        let original = try await RunningPlatform.run("\(binaries)/devices", ["--probe", "sideways"])
        #expect(probe.status == original.status && probe.output == original.output, "\(probe.output)")
    }
}
