import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation

/// The audit log of admin actions (docs/admin.md, "The audit log"): the gateway appends an entry before each admin call
/// and one after it; owners read the log.
extension AuthMethods {
    /// Appends one entry to the chain; its answer is the new head. Not retried: a retry could record the entry twice.
    public static let auditAppend = RPCMethod<AuditRecord, AuditHead>("auth.audit.append")
    /// The chain's last entry (sequence 0 and the genesis hash when the log is empty), for the published heads.
    public static let auditHead = RPCMethod<Empty, AuditHead>("auth.audit.head", retry: .safe)
    /// `GET /admin/v1/audit`: a page of entries as JSON, or every matching entry as CSV or NDJSON.
    public static let auditList = RoutedMethod<AuditQuery, StreamPage>("auth.audit.list", retry: .safe)
}

/// Which half of an action an entry records: `begin` is written before the action runs (without it the action is
/// refused), `end` after it, with its outcome.
public enum AuditPhase: String, Codable, Sendable, CaseIterable {
    case begin, end
}

/// What is recorded of an action: who (an identity, never a credential), what, and how it ended. Targets are ids
/// (pseudonyms, device names, identity ids), never personal data.
public struct AuditRecord: Codable, Sendable, Equatable {
    public var phase: AuditPhase
    /// The identity's id, or `cli` for the command line.
    public var identity: String
    @ExplicitNull public var identity_label: String?
    @ExplicitNull public var scope: String?
    /// `METHOD /path pattern` for a route (`GET /admin/v1/measurements`), or the command (`custodian admin revoke-token`).
    public var action: String
    public var targets: [String]
    /// An export's or a list's query, as `name=value&…` with names in order.
    @ExplicitNull public var query: String?
    public var request_id: String
    /// On `end`: the HTTP status the action answered with.
    @ExplicitNull public var status: Int?
    /// On `end` of a read: the rows and bytes it returned.
    @ExplicitNull public var rows: Int64?
    @ExplicitNull public var bytes: Int64?

    public init(
        phase: AuditPhase, identity: String, identity_label: String?, scope: String?, action: String, targets: [String],
        query: String?, request_id: String, status: Int? = nil, rows: Int64? = nil, bytes: Int64? = nil
    ) {
        self.phase = phase
        self.identity = identity
        self.identity_label = identity_label
        self.scope = scope
        self.action = action
        self.targets = targets
        self.query = query
        self.request_id = request_id
        self.status = status
        self.rows = rows
        self.bytes = bytes
    }
}

/// A link of the chain: the record, where and when it was appended, and the hashes that chain it.
public struct AuditEntry: Codable, Sendable, Equatable {
    public var seq: Int64
    /// Microseconds since 1970, as hashed; `at` is the same instant for people.
    public var at_micros: Int64
    public var record: AuditRecord
    /// Hex of SHA-256: the entry before's hash (zeros for the first), and this one's.
    public var previous_hash: String
    public var hash: String

    public init(seq: Int64, at_micros: Int64, record: AuditRecord, previous_hash: String, hash: String) {
        self.seq = seq
        self.at_micros = at_micros
        self.record = record
        self.previous_hash = previous_hash
        self.hash = hash
    }
}

/// The chain's last entry: publishing it lets a later check prove the entries up to it are all still there.
public struct AuditHead: Codable, Sendable, Equatable {
    public var seq: Int64
    public var hash: String

    public init(seq: Int64, hash: String) {
        self.seq = seq
        self.hash = hash
    }

    /// `seq:hash`, as logged and as `custodian audit verify --head` takes it.
    public var text: String { "\(seq):\(hash)" }

    public init?(text: String) {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let seq = Int64(parts[0]), seq >= 0, parts[1].count == 64, parts[1].allSatisfy(\.isHexDigit) else { return nil }
        self.init(seq: seq, hash: parts[1].lowercased())
    }
}

/// `GET /admin/v1/audit?identity=…&action=…&target=…&from=…&to=…&after=…&limit=…&format=json|csv|ndjson`.
public struct AuditQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public enum Format: String, Sendable { case json, csv, ndjson }

    public var format: Format
    /// An identity's id or label.
    public var identity: String?
    public var action: String?
    /// One id among an entry's targets (a pseudonym, a device name).
    public var target: String?
    public var from: Date?
    public var to: Date?
    /// Entries after this sequence number (the JSON pages' `next_after`).
    public var after: Int64
    public var limit: Int
    public var cursor: String?

    public init(
        format: Format = .json, identity: String? = nil, action: String? = nil, target: String? = nil, from: Date? = nil,
        to: Date? = nil, after: Int64 = 0, limit: Int = 100, cursor: String? = nil
    ) {
        self.format = format
        self.identity = identity
        self.action = action
        self.target = target
        self.from = from
        self.to = to
        self.after = after
        self.limit = limit
        self.cursor = cursor
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        let format = try request.singleQuery("format") ?? "json"
        guard let known = Format(rawValue: format) else { throw RPCError.badRequest("format must be json, csv or ndjson", reason: "invalid_query") }
        self.format = known
        // An empty filter is no filter: what a form with an empty field sends.
        identity = try request.singleQuery("identity").flatMap { $0.isEmpty ? nil : $0 }
        action = try request.singleQuery("action").flatMap { $0.isEmpty ? nil : $0 }
        target = try request.singleQuery("target").flatMap { $0.isEmpty ? nil : $0 }
        from = try Self.time(request, "from")
        to = try Self.time(request, "to")
        after = try request.integerQuery("after", default: 0, in: 0...Int64.max)
        limit = Int(try request.integerQuery("limit", default: 100, in: 1...1000))
        cursor = try request.cursor
    }

    private static func time(_ request: RequestReader, _ name: String) throws -> Date? {
        guard let text = try request.singleQuery(name), !text.isEmpty else { return nil }
        return try DevicesExport.time(request, name)
    }

    public func encode(to encoder: any Encoder) throws {
        var query: [String: [String]] = ["format": [format.rawValue], "after": [String(after)], "limit": [String(limit)]]
        query["identity"] = identity.map { [$0] }
        query["action"] = action.map { [$0] }
        query["target"] = target.map { [$0] }
        query["from"] = from.map { [DevicesExport.text($0)] }
        query["to"] = to.map { [DevicesExport.text($0)] }
        try HTTPInput(query: query, cursor: cursor).encode(to: encoder)
    }
}
