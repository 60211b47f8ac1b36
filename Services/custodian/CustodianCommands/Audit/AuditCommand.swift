import ArgumentParser
import CustodianAudit
import CustodianContracts
import CustodianRuntime
import Foundation
import Logging

/// `custodian audit verify`: walks the audit log's hash chain straight from the database and names the first entry that
/// does not match (docs/operations.md, "The audit log").
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "The audit log of admin actions.", subcommands: [Verify.self])

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Checks the audit log's hash chain, and that it still holds the published heads given.",
            discussion: """
                Exit 0: every entry follows the one before and hashes to its hash, and every head given is in the chain. \
                Exit 1: the first entry that does not match is named. A head is SEQ:HASH, as the gateway logs it \
                ("audit head") and /metrics shows it (custodian_audit_head).
                """)

        @OptionGroup var database: Admin.DatabaseOption
        @Option(name: .customLong("head"), help: "A published head, SEQ:HASH; may be repeated.") var heads: [String] = []

        func run() async throws {
            let published = try heads.map { text in
                guard let head = AuditHead(text: text) else {
                    throw ValidationError("--head \(text) is not SEQ:HASH (a number, a colon, 64 hex digits)")
                }
                return head
            }
            let logger = Logger(label: "custodian")
            let (check, count) = try await Deployment.withDatabase(try database.url(), logger: logger) { client in
                try await AuditLedger(database: Database(client: client)).verify(heads: published, logger: logger)
            }
            if let broken = check.firstBreak {
                print("audit log broken at entry \(broken.seq): \(broken)")
                throw ExitCode(1)
            }
            print("audit log intact: \(count) entries, head \(check.last.text)")
        }
    }
}
