import ArgumentParser
import CustodianRuntime
import Foundation

/// `custodian`: the root command; `Services/custodian/Main` only calls ``runAsRoot()``.
public struct Custodian: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "custodian",
        abstract: "Runs and administers the Custodian platform.",
        version: CustodianVersion.current,
        subcommands: [
            Up.self, Restart.self, Setup.self, Rotate.self, Admin.self, Erase.self, Detach.self, AuditCommand.self, Vault.self, RouteCommand.self,
            Lemon.self, Stats.self, BackupCommand.self, RestoreCommand.self,
            GeotagCommand.self, Loadgen.self, Bench.self, BenchBaseline.self,
        ])

    /// Parses the process's arguments, runs the command they name and exits with its status: ArgumentParser's `main()`,
    /// except that a usage error a subcommand finds while it runs (options that do not go together, a missing key) shows
    /// that subcommand's usage, not the top-level one. (Not named `main()`: from top-level code the compiler would pick
    /// ArgumentParser's synchronous `main()`, which refuses to run an asynchronous command.)
    public static func runAsRoot() async {
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exit(withError: error)
        }
        do {
            try await runParsed(command)
        } catch let error as ValidationError {
            FileHandle.standardError.write(Data(usageError(error, of: type(of: command)).utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        } catch {
            exit(withError: error)
        }
    }

    /// Runs a command `parseAsRoot()` returned, asynchronous or not.
    static func runParsed(_ command: any ParsableCommand) async throws {
        if var asyncCommand = command as? any AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            var syncCommand = command
            try syncCommand.run()
        }
    }

    /// What a usage error met while `command` ran prints: the message, that command's usage and where its help is.
    static func usageError(_ error: ValidationError, of command: any ParsableCommand.Type) -> String {
        let usage = usageString(for: command)
        let path = usage.split(separator: " ").prefix { !["[", "<", "-"].contains($0.first) }.joined(separator: " ")
        return "Error: \(error.message)\nUsage: \(usage)\n  See '\(path) --help' for more information.\n"
    }

    public init() {}
}
