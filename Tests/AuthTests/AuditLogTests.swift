import AuthService
import CustodianAudit
import CustodianContracts
import CustodianJSON
import CustodianRPC
import CustodianRuntime
import Foundation
import Logging
import PostgresNIO
import ServiceTestSupport
import Testing

/// The audit log: append-only for the role that writes it, hash-chained, and its check names the first broken entry.
@Suite("The audit log")
struct AuditLogTests {
    static func record(_ n: Int, phase: AuditPhase = .begin) -> AuditRecord {
        AuditRecord(
            phase: phase, identity: "id-\(n)", identity_label: "label \(n)", scope: "researcher", action: "GET /admin/v1/measurements",
            targets: ["80118\(n)"], query: "pseudonym=80118\(n)", request_id: "request-\(n)", status: phase == .end ? 200 : nil,
            rows: phase == .end ? Int64(n) : nil, bytes: phase == .end ? Int64(10 * n) : nil)
    }

    @Test func theWritingRoleMayInsertButNotUpdateDeleteOrTruncate() async throws {
        let logger = Logger(label: "audit-grants")
        let (admin, services) = try await TestPostgres.shared.makeDatabase(for: ["auth"], logger: logger)
        let writer = try #require(services["auth"])
        try await PostgresClient.withClient(url: writer, poolSize: 1, logger: logger) { client in
            let ledger = AuditLedger(database: Database(client: client))
            let head = try await ledger.append(Self.record(1), logger: logger)
            #expect(head.seq == 1)
            for statement in [
                "UPDATE audit.entries SET identity = 'someone else'", "DELETE FROM audit.entries",
                "TRUNCATE audit.entries", "ALTER TABLE audit.entries DROP COLUMN hash", "DROP TABLE audit.entries",
            ] {
                await #expect(throws: PSQLError.self, "\(statement) was allowed") {
                    try await client.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
            }
        }
        // The entry is still there and intact, as the database's owner sees it.
        try await PostgresClient.withClient(url: admin, poolSize: 1, logger: logger) { client in
            let (check, count) = try await AuditLedger(database: Database(client: client)).verify(heads: [], logger: logger)
            #expect(count == 1 && check.firstBreak == nil)
        }
    }

    /// Appends five entries through `auth` and tampers with them as the database's owner; `verify` must name the entry.
    @Test(arguments: [
        ("UPDATE audit.entries SET targets = ARRAY['999999'] WHERE seq = 3", AuditChainCheck.Break.altered(seq: 3)),
        ("DELETE FROM audit.entries WHERE seq = 2", .gap(seq: 3, expected: 2)),
        // Entries 3 and 4 change places (everything but the sequence numbers, which are the order).
        (
            "UPDATE audit.entries e SET (at_micros, phase, identity, identity_label, scope, action, targets, query, request_id, status, rows, bytes, previous_hash, hash) = (SELECT at_micros, phase, identity, identity_label, scope, action, targets, query, request_id, status, rows, bytes, previous_hash, hash FROM audit.entries o WHERE o.seq = 7 - e.seq) WHERE e.seq IN (3, 4)",
            .altered(seq: 3)
        ),
        // A hash swapped for another entry's.
        ("UPDATE audit.entries SET hash = (SELECT previous_hash FROM audit.entries WHERE seq = 5) WHERE seq = 3", .altered(seq: 3)),
    ])
    func tamperingIsFoundAtTheFirstBrokenEntry(statement: String, expected: AuditChainCheck.Break) async throws {
        try await AuthHarness.run { harness, _ in
            for n in 1...5 { _ = try await harness.call(AuthMethods.auditAppend, Self.record(n, phase: n % 2 == 0 ? .end : .begin)) }
            let ledger = AuditLedger(database: Database(client: harness.database))
            #expect(try await ledger.verify(heads: [], logger: harness.logger).check.firstBreak == nil)
            try await harness.database.query(PostgresQuery(unsafeSQL: statement), logger: harness.logger)
            #expect(try await ledger.verify(heads: [], logger: harness.logger).check.firstBreak == expected)
        }
    }

    @Test func aRecomputedEntryBreaksTheLinkOfTheNext() async throws {
        try await AuthHarness.run { harness, _ in
            for n in 1...4 { _ = try await harness.call(AuthMethods.auditAppend, Self.record(n)) }
            let ledger = AuditLedger(database: Database(client: harness.database))
            // Someone who knows the hash function rewrites entry 2 completely, hash included.
            let entry = try #require(try await ledger.entries(after: 1, limit: 1, logger: harness.logger).first)
            var forged = entry.record
            forged.targets = ["123456"]
            let hash = AuditHash.of(seq: entry.seq, atMicros: entry.at_micros, record: forged, previous: entry.previous_hash)
            try await harness.database.query(
                "UPDATE audit.entries SET targets = ARRAY['123456'], hash = decode(\(hash), 'hex') WHERE seq = 2", logger: harness.logger)
            #expect(try await ledger.verify(heads: [], logger: harness.logger).check.firstBreak == .unlinked(seq: 3))
        }
    }

    @Test func aCutTailIsFoundAgainstAnEarlierHead() async throws {
        try await AuthHarness.run { harness, _ in
            for n in 1...3 { _ = try await harness.call(AuthMethods.auditAppend, Self.record(n)) }
            let published = try await harness.call(AuthMethods.auditHead, Empty())
            #expect(published.seq == 3)
            _ = try await harness.call(AuthMethods.auditAppend, Self.record(4))
            let ledger = AuditLedger(database: Database(client: harness.database))
            #expect(try await ledger.verify(heads: [published], logger: harness.logger).check.firstBreak == nil)
            try await harness.database.query("DELETE FROM audit.entries WHERE seq >= 3", logger: harness.logger)
            // The chain that is left is whole; only the published head shows that entries are gone.
            #expect(try await ledger.verify(heads: [], logger: harness.logger).check.firstBreak == nil)
            #expect(try await ledger.verify(heads: [published], logger: harness.logger).check.firstBreak == .headMissing(published, lastSeq: 2))
        }
    }

    @Test func aListedEntryShowsItsRecordAndFiltersFindIt() async throws {
        try await AuthHarness.run { harness, _ in
            for n in 1...3 { _ = try await harness.call(AuthMethods.auditAppend, Self.record(n)) }
            let owner = Principal(kind: .admin, id: "owner", scopes: ["owner"])
            let page = try await harness.call(AuthMethods.auditList, AuditQuery(target: "801182"), as: owner)
            let answer = try JSONValue.parse(Data(page.chunk.utf8))
            let entries = try #require(answer["entries"]?.arrayValue)
            #expect(entries.count == 1 && entries[0]["identity_label"] == "label 2" && entries[0]["seq"] == .int(2))
            let csv = try await harness.call(AuthMethods.auditList, AuditQuery(format: .csv, identity: "label 3"), as: owner)
            #expect(csv.chunk.split(separator: "\r\n").count == 2 && csv.chunk.contains("801183"))
        }
    }
}
