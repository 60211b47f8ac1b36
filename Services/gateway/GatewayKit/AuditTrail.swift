import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation
import HTTPTypes

/// Records each admin call in the audit log (docs/admin.md, "The audit log"): an entry before the call, which must be
/// written or the call is refused with 503, and one after it with the outcome and, for reads, the rows and bytes
/// returned. Both name the identity, never its token; the targets are the ids in the path and the query.
struct AuditTrail: Sendable {
    let rpc: RPCClient

    /// Query parameters whose values are ids worth finding an entry by (`?target=`): pseudonyms, devices, identities.
    static let targetParameters: Set<String> = [
        "pseudonym", "device", "device_id", "device_name", "account", "identity", "target", "user_id", "module_id",
    ]
    /// Members of a created thing's answer that name it.
    static let createdIDs = ["id", "pseudonym", "kid"]

    /// The `begin` entry of a call on `route`, written before the call; nil for routes that are not admin routes.
    func begin(_ route: Route, input: HTTPInput, context: CallContext) async throws -> AuditRecord? {
        guard case .admin = route.auth, let principal = context.principal else { return nil }
        let record = Self.record(route, input: input, principal: principal, requestID: context.requestID)
        try await append(record, style: route.style, context: context)
        return record
    }

    /// The `end` entry of a call that answered; the call's answer is withheld (503) when it cannot be written.
    func end(
        _ begun: AuditRecord?, style: APIStyle, status: HTTPResponse.Status, counts: Counts = Counts(), created: JSONValue? = nil,
        context: CallContext
    ) async throws {
        guard var record = begun else { return }
        record.phase = .end
        record.status = Int(status.code)
        record.rows = counts.rows
        record.bytes = counts.bytes
        if let created {
            // A write that made several things answers them in its one list (a cohort's accounts): each is named.
            let items = record.action.hasPrefix("GET ") ? [] : Self.listed(created)
            for answer in [created] + items {
                for key in Self.createdIDs {
                    // An answer that names what its path named already (an erasure's receipt) adds nothing.
                    switch answer[key] {
                    case .string(let id)? where !record.targets.contains(id): record.targets.append(id)
                    case .int(let id)? where !record.targets.contains(String(id)): record.targets.append(String(id))
                    default: break
                    }
                }
            }
        }
        try await append(record, style: style, context: context)
    }

    /// The items of an answer's one list member (`{"accounts": […]}`), none when it has no list or several.
    static func listed(_ answer: JSONValue) -> [JSONValue] {
        guard case .object(let members) = answer else { return [] }
        let lists = members.values.compactMap(\.arrayValue)
        return lists.count == 1 ? lists[0] : []
    }

    /// The `end` entry of a call the service refused: written when it can be; the refusal goes to the client either way.
    func refused(_ begun: AuditRecord?, style: APIStyle, status: HTTPResponse.Status, context: CallContext) async {
        try? await end(begun, style: style, status: status, context: context)
    }

    private func append(_ record: AuditRecord, style: APIStyle, context: CallContext) async throws {
        do {
            _ = try await rpc.call(AuthMethods.auditAppend, input: record, context: context)
        } catch {
            context.logger.error(
                "audit entry not written: the admin call is refused",
                metadata: [
                    "action": .string(record.action), "phase": .string(record.phase.rawValue), "error": .string(String(describing: error)),
                ])
            var refusal = GatewayError(
                status: .serviceUnavailable, reason: "audit_unavailable",
                message: "The audit log cannot be written, so this admin action was not performed", style: style)
            refusal.headers[.retryAfter] = "2"
            throw refusal
        }
    }

    static func record(_ route: Route, input: HTTPInput, principal: Principal, requestID: String) -> AuditRecord {
        var targets = input.path.sorted { $0.key < $1.key }.map(\.value)
        for (name, values) in input.query.sorted(by: { $0.key < $1.key }) where targetParameters.contains(name) {
            targets.append(contentsOf: values)
        }
        let query =
            input.query.isEmpty
            ? nil
            : input.query.sorted { $0.key < $1.key }.flatMap { name, values in
                values.map { "\(escaped(name))=\(escaped($0))" }
            }.joined(separator: "&")
        return AuditRecord(
            phase: .begin, identity: principal.id, identity_label: principal.name, scope: principal.scopes.first,
            action: "\(route.method.rawValue) \(route.path)", targets: targets, query: query, request_id: requestID)
    }

    private static let queryValueCharacters = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+#"))

    private static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryValueCharacters) ?? text
    }

    /// What a read returned: rows where the answer is a list or a CSV/NDJSON file, and bytes.
    struct Counts: Sendable {
        var rows: Int64?
        var bytes: Int64?

        init(rows: Int64? = nil, bytes: Int64? = nil) {
            self.rows = rows
            self.bytes = bytes
        }

        /// A JSON answer: its list's length (the answer, or its one list member: `{"accounts": […], "next_after": …}`).
        init(json: JSONValue, bytes: Int) {
            self.bytes = Int64(bytes)
            switch json {
            case .array(let items):
                rows = Int64(items.count)
            case .object(let members):
                let lists = members.values.compactMap(\.arrayValue)
                rows = lists.count == 1 ? Int64(lists[0].count) : nil
            default:
                rows = nil
            }
        }

        /// A result of a routed call as it came from the service.
        init(_ result: some Sendable) {
            switch result {
            case let json as JSONValue: self.init(json: json, bytes: json.jsonBytes.count)
            case let reply as RawHTTPReply: self.init(bytes: Int64(Data(base64Encoded: reply.body)?.count ?? 0))
            case let page as StreamPage:
                var counter = StreamCounter(headers: page.headers)
                counter.add(page.chunk)
                self = counter.counts
            default: self.init()
            }
        }
    }

    /// Counts the pages of a streamed export as they are written: lines are rows, but for a CSV file's header.
    struct StreamCounter: Sendable {
        let lineFormat: Bool
        let header: Bool
        private(set) var lines: Int64 = 0
        private(set) var bytes: Int64 = 0

        init(headers: [String: String]?) {
            let type = headers?.first { $0.key.lowercased() == "content-type" }?.value.lowercased() ?? ""
            header = type.hasPrefix("text/csv")
            lineFormat = header || type.hasPrefix("application/x-ndjson")
        }

        mutating func add(_ chunk: String) {
            bytes += Int64(chunk.utf8.count)
            lines += Int64(chunk.utf8.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 })
        }

        var counts: Counts {
            Counts(rows: lineFormat ? max(0, lines - (header ? 1 : 0)) : nil, bytes: bytes)
        }
    }
}
