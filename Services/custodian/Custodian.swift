import ArgumentParser
import CustodianRuntime

@main
struct Custodian: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "custodian",
        abstract: "Runs and administers the Custodian platform.",
        version: CustodianVersion.current,
        subcommands: [Up.self, Restart.self, Setup.self, Admin.self, Vault.self, RouteCommand.self, Lemon.self, Stats.self, GeotagCommand.self, Loadgen.self, Bench.self])
}

struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
