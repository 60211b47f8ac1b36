import Foundation
import Testing

/// The command line as a newcomer meets it: a usage error names the command that met it.
@Suite("custodian: usage errors")
struct CommandLineTests {
    @Test func aUsageErrorFoundWhileRunningShowsItsOwnCommandsUsage() async throws {
        let custodian = try RunningPlatform.binaryDirectory() + "/custodian"
        let vault = try await RunningPlatform.run(custodian, ["vault", "open"])
        #expect(vault.status != 0)
        #expect(vault.output.contains("Error: give --secret-key"), "\(vault.output)")
        #expect(vault.output.contains("Usage: custodian vault open [--secret-key <secret-key>]"), "\(vault.output)")
        #expect(vault.output.contains("See 'custodian vault open --help'"), "\(vault.output)")
        #expect(!vault.output.contains("SUBCOMMANDS"), "the top-level usage was printed: \(vault.output)")
        // A parse error was already answered with the subcommand's usage, as before.
        let unknown = try await RunningPlatform.run(custodian, ["stats", "import"])
        #expect(unknown.status != 0 && unknown.output.contains("custodian stats import"), "\(unknown.output)")
    }
}
