import CustodianContracts
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import PostgresNIO

/// The audit log in PostgreSQL (`audit.entries`): appends chained entries, reads them back. Appends from every replica
/// are put in one order by a transaction-scoped advisory lock, so that each entry names the one before it.
public struct AuditLedger: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Appends `record` after the last entry and returns the new head; the entry is committed when this returns.
    @discardableResult
    public func append(_ record: AuditRecord, logger: Logger) async throws -> AuditHead {
        let atMicros = Int64((Date().timeIntervalSince1970 * 1_000_000).rounded())
        return try await database.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext('custodian.audit'))", logger: logger)
            var previous = AuditHead(seq: 0, hash: AuditHash.genesis)
            for try await (seq, hash) in try await connection.query(
                "SELECT seq, hash FROM audit.entries ORDER BY seq DESC LIMIT 1", logger: logger
            ).decode((Int64, Data).self) {
                previous = AuditHead(seq: seq, hash: Self.hex(hash))
            }
            let seq = previous.seq + 1
            let hash = AuditHash.of(seq: seq, atMicros: atMicros, record: record, previous: previous.hash)
            try await connection.query(
                """
                INSERT INTO audit.entries (seq, at_micros, phase, identity, identity_label, scope, action, targets, query, request_id,
                    status, rows, bytes, previous_hash, hash)
                VALUES (\(seq), \(atMicros), \(record.phase.rawValue), \(record.identity), \(record.identity_label), \(record.scope),
                    \(record.action), \(record.targets), \(record.query), \(record.request_id), \(record.status), \(record.rows),
                    \(record.bytes), \(Self.bytes(previous.hash)), \(Self.bytes(hash)))
                """, logger: logger)
            return AuditHead(seq: seq, hash: hash)
        }
    }

    /// The last entry, or sequence 0 and the genesis hash.
    public func head(logger: Logger) async throws -> AuditHead {
        let rows = try await database.query("SELECT seq, hash FROM audit.entries ORDER BY seq DESC LIMIT 1", logger: logger)
        for try await (seq, hash) in rows.decode((Int64, Data).self) { return AuditHead(seq: seq, hash: Self.hex(hash)) }
        return AuditHead(seq: 0, hash: AuditHash.genesis)
    }

    /// What a reader asks for: entries after `after`, at most `limit`, matching every filter given.
    public struct Filter: Sendable {
        public var identity: String?
        public var action: String?
        public var target: String?
        public var from: Date?
        public var to: Date?

        public init(identity: String? = nil, action: String? = nil, target: String? = nil, from: Date? = nil, to: Date? = nil) {
            self.identity = identity
            self.action = action
            self.target = target
            self.from = from
            self.to = to
        }
    }

    /// Entries in sequence order after `after`. An identity matches its id or its label.
    public func entries(after: Int64, limit: Int, filter: Filter = Filter(), logger: Logger) async throws -> [AuditEntry] {
        let from = filter.from.map { Int64(($0.timeIntervalSince1970 * 1_000_000).rounded()) }
        let to = filter.to.map { Int64(($0.timeIntervalSince1970 * 1_000_000).rounded()) }
        let rows = try await database.query(
            """
            SELECT seq, at_micros, phase, identity, identity_label, scope, action, targets, query, request_id, status, rows, bytes,
                previous_hash, hash
            FROM audit.entries
            WHERE seq > \(after)
              AND (\(filter.identity)::text IS NULL OR identity = \(filter.identity) OR identity_label = \(filter.identity))
              AND (\(filter.action)::text IS NULL OR action = \(filter.action))
              AND (\(filter.target)::text IS NULL OR \(filter.target) = ANY (targets))
              AND (\(from)::bigint IS NULL OR at_micros >= \(from)) AND (\(to)::bigint IS NULL OR at_micros < \(to))
            ORDER BY seq LIMIT \(limit)
            """, logger: logger)
        var entries: [AuditEntry] = []
        for row in rows.rows {
            let cells = row.makeRandomAccess()
            let phase = try cells["phase"].decode(String.self)
            let record = AuditRecord(
                // A phase this code does not know still hashes as written: it is kept as `end` only for display and
                // fails verification, which is what an edited phase should do.
                phase: AuditPhase(rawValue: phase) ?? .end,
                identity: try cells["identity"].decode(String.self), identity_label: try cells["identity_label"].decode(String?.self),
                scope: try cells["scope"].decode(String?.self), action: try cells["action"].decode(String.self),
                targets: try cells["targets"].decode([String].self), query: try cells["query"].decode(String?.self),
                request_id: try cells["request_id"].decode(String.self), status: try cells["status"].decode(Int?.self),
                rows: try cells["rows"].decode(Int64?.self), bytes: try cells["bytes"].decode(Int64?.self))
            entries.append(
                AuditEntry(
                    seq: try cells["seq"].decode(Int64.self), at_micros: try cells["at_micros"].decode(Int64.self), record: record,
                    previous_hash: Self.hex(try cells["previous_hash"].decode(Data.self)), hash: Self.hex(try cells["hash"].decode(Data.self))))
        }
        return entries
    }

    /// Checks the whole chain against `heads`, a page at a time.
    public func verify(heads: [AuditHead], logger: Logger) async throws -> (check: AuditChainCheck, entries: Int64) {
        var check = AuditChainCheck(heads: heads)
        var after: Int64 = 0, count: Int64 = 0
        while true {
            let page = try await entries(after: after, limit: 1000, logger: logger)
            for entry in page {
                check.take(entry)
                count += 1
            }
            guard let last = page.last, check.firstBreak == nil else { break }
            after = last.seq
        }
        check.finish()
        return (check, count)
    }

    static func hex(_ data: Data) -> String { Hex.encode(data) }

    /// A hash as stored; the hex comes from ``AuditHash``, so it always decodes.
    static func bytes(_ hex: String) -> Data { Hex.decode(hex) ?? Data() }
}
