import ArgumentParser
import CustodianRuntime
import Foundation

/// `custodian`: the root command; `Services/custodian/Main` only calls ``runAsRoot()``.
public struct Custodian: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "custodian",
        abstract: "Runs and administers the Custodian platform.",
        version: CustodianVersion.current,
        subcommands: [Up.self, Restart.self, Setup.self, Admin.self, Vault.self, RouteCommand.self, Lemon.self, Stats.self, GeotagCommand.self, Loadgen.self, Bench.self, BenchBaseline.self])

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
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var syncCommand = command
                try syncCommand.run()
            }
        } catch let error as ValidationError {
            let usage = usageString(for: type(of: command))
            let path = usage.split(separator: " ").prefix { !["[", "<", "-"].contains($0.first) }.joined(separator: " ")
            FileHandle.standardError.write(Data("Error: \(error.message)\nUsage: \(usage)\n  See '\(path) --help' for more information.\n".utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        } catch {
            exit(withError: error)
        }
    }

    public init() {}
}
