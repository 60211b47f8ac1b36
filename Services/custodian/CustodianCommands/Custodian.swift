import ArgumentParser
import CustodianRuntime
import Foundation

@main
struct Custodian: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "custodian",
        abstract: "Runs and administers the Custodian platform.",
        version: CustodianVersion.current,
        subcommands: [Up.self, Restart.self, Setup.self, Admin.self, Vault.self, RouteCommand.self, Lemon.self, Stats.self, GeotagCommand.self, Loadgen.self, Bench.self, BenchBaseline.self])

    /// As ArgumentParser's, except that a usage error a subcommand finds while it runs (options that do not go
    /// together, a missing key) shows that subcommand's usage, not the top-level one.
    static func main() async {
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
}

struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
