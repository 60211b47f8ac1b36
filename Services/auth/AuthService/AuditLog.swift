import CustodianAudit
import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianRuntime
import Foundation

/// The audit log as the auth service keeps it: appended to by the gateway for each admin action, read by owners
/// (`GET /admin/v1/audit`). Its role may INSERT and SELECT there, nothing else (``AuditSchema``).
struct AuditLog: Sendable {
    let ledger: AuditLedger

    static let columns = [
        "seq", "at", "phase", "identity", "identity_label", "scope", "action", "targets", "query", "request_id",
        "status", "rows", "bytes", "previous_hash", "hash",
    ]

    func append(_ record: AuditRecord, context: CallContext) async throws -> AuditHead {
        do {
            return try await ledger.append(record, logger: context.logger)
        } catch let error as RPCError {
            throw error
        } catch {
            // Whatever keeps the entry from being written, the action it records must not go ahead (the gateway answers 503).
            context.logger.error("audit entry not written", metadata: ["error": .string(DatabaseErrors.logDescription(error))])
            throw RPCError.unavailable("The audit log cannot be written; the action was not performed", reason: "audit_unavailable", retryAfter: 2)
        }
    }

    /// JSON: one page of `limit` entries and `next_after`; CSV and NDJSON: every matching entry, a page per call.
    func list(_ query: AuditQuery, context: CallContext) async throws -> StreamPage {
        let filter = AuditLedger.Filter(identity: query.identity, action: query.action, target: query.target, from: query.from, to: query.to)
        if query.format == .json {
            let entries = try await ledger.entries(after: query.after, limit: query.limit + 1, filter: filter, logger: context.logger)
            let page = entries.prefix(query.limit)
            let next: JSONValue = entries.count > query.limit ? .int(page.last?.seq ?? 0) : .null
            let body: JSONValue = ["entries": .array(page.map { .object(Self.object($0)) }), "next_after": next]
            return StreamPage(
                headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                chunk: String(decoding: body.jsonBytes, as: UTF8.self) + "\n", next: nil)
        }
        guard let after = query.cursor.map({ Int64($0) }) ?? query.after else {
            throw RPCError.badRequest("invalid export cursor", reason: "invalid_cursor")
        }
        let entries = try await ledger.entries(after: after, limit: ResearcherExport.pageSize, filter: filter, logger: context.logger)
        let format: ResearcherExport.Format = query.format == .csv ? .csv : .ndjson
        var chunk = query.cursor == nil && format == .csv ? ResearcherExport.csvLine(Self.columns) : ""
        for entry in entries {
            let object = Self.object(entry)
            if format == .csv {
                chunk += ResearcherExport.csvLine(
                    Self.columns.map { name in
                        switch object[name] {
                        case .string(let text)?: text
                        case .int(let number)?: String(number)
                        case .array(let items)?: items.compactMap(\.stringValue).joined(separator: " ")
                        default: nil
                        }
                    })
            } else {
                chunk += try ResearcherExport.ndjsonLine(object)
            }
        }
        let next = entries.count == ResearcherExport.pageSize ? entries.last.map { String($0.seq) } : nil
        return StreamPage(headers: query.cursor == nil ? ResearcherExport.headers(format, name: "audit") : nil, chunk: chunk, next: next)
    }

    /// An entry as owners read it: the record's members beside the chain's.
    static func object(_ entry: AuditEntry) -> [String: JSONValue] {
        let record = entry.record
        func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
        func number(_ value: Int64?) -> JSONValue { value.map { .int($0) } ?? .null }
        let at = Date(timeIntervalSince1970: Double(entry.at_micros) / 1_000_000)
        return [
            "seq": .int(entry.seq), "at": .string(at.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))),
            "phase": .string(record.phase.rawValue), "identity": .string(record.identity), "identity_label": text(record.identity_label),
            "scope": text(record.scope), "action": .string(record.action), "targets": .array(record.targets.map { .string($0) }),
            "query": text(record.query), "request_id": .string(record.request_id), "status": number(record.status.map(Int64.init)),
            "rows": number(record.rows), "bytes": number(record.bytes), "previous_hash": .string(entry.previous_hash), "hash": .string(entry.hash),
        ]
    }
}
