import CustodianAudit
import CustodianContracts
import CustodianRPC
import Foundation
import Logging

/// The audit log's entries for what the command line does to admin identities: the same `begin`/`end` pair the
/// gateway writes for an admin call, by the identity `cli` (the operating-system user who ran it as its label).
struct CommandAudit: Sendable {
    let ledger: AuditLedger

    static var identityLabel: String {
        let user = ProcessInfo.processInfo.environment["SUDO_USER"] ?? NSUserName()
        return "command line (\(user)@\(ProcessInfo.processInfo.hostName))"
    }

    /// Runs `body` between a `begin` entry (without which it does not run) and an `end` entry naming what it returned.
    func record<T: Sendable>(
        _ command: String, targets: [String] = [], logger: Logger,
        _ body: () async throws -> (T, [String])
    ) async throws -> T {
        var record = AuditRecord(
            phase: .begin, identity: "cli", identity_label: Self.identityLabel, scope: AdminScope.owner.rawValue,
            action: command, targets: targets, query: nil, request_id: "cli-\(RequestID.random())")
        do {
            try await ledger.append(record, logger: logger)
        } catch {
            throw CLIError(
                "the audit log cannot be written, so nothing was done (\(error)); has `custodian setup` or `custodian up` provisioned this database?")
        }
        record.phase = .end
        do {
            let (result, made) = try await body()
            record.status = 200
            record.targets += made
            try await ledger.append(record, logger: logger)
            return result
        } catch {
            record.status = (error as? RPCError).map { $0.code.httpStatus } ?? 500
            _ = try? await ledger.append(record, logger: logger)
            throw error
        }
    }
}
