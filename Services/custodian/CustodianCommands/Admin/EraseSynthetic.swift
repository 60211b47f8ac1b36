import ArgumentParser
import CustodianLoad
import Foundation

/// `custodian admin erase-synthetic`: a thin command over ``SyntheticCleanup``.
struct EraseSynthetic: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "erase-synthetic",
        abstract: "Erases every record marked synthetic (what loadgen and bench created) through the admin API's erasure routes.",
        discussion: """
            Finds them with include_synthetic=only and erases each as DELETE /admin/v1/… would: Twomes accounts, the \
            devices they leave detached, OpenSense devices, vault users, API consumers and LEMON app instances, with \
            everything that belongs to them. Needs an owner's token (erasure is the owner's). See docs/operations.md, \
            "Synthetic data".
            """)

    @OptionGroup var connection: ServerConnection

    func run() async throws {
        let client = try connection.loadClient(connections: 8)
        let outcome: Result<SyntheticCleanup.Summary, any Error>
        do {
            outcome = .success(try await SyntheticCleanup.run(client: client) { print($0) })
        } catch {
            outcome = .failure(error)
        }
        await client.shutdown()
        let summary = try outcome.mapError { CLIError("\($0)") }.get()
        let deleted = summary.deleted.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        print("deleted    " + (deleted.isEmpty ? "nothing" : deleted.joined(separator: ", ")))
    }
}
