import CustodianContracts

/// Walks the chain entry by entry, in the order of their sequence numbers, and says where it first breaks: a pure state
/// machine, fed by whoever reads the entries (`custodian audit verify` pages through the table).
public struct AuditChainCheck: Sendable {
    /// Why an entry does not belong where it is.
    public enum Break: Sendable, Equatable, CustomStringConvertible {
        /// Its sequence number is not the one after the entry before (one is missing, or the rows were renumbered).
        case gap(seq: Int64, expected: Int64)
        /// It does not name the entry before's hash (entries were removed, reordered or inserted).
        case unlinked(seq: Int64)
        /// Its content does not hash to its hash (it was edited).
        case altered(seq: Int64)
        /// The chain ends before a published head, or holds another entry there (the tail was cut or rewritten).
        case headMissing(AuditHead, lastSeq: Int64)
        case headMismatch(AuditHead, found: String)

        public var seq: Int64 {
            switch self {
            // A gap is named by the entry that is missing.
            case .gap(_, let expected): expected
            case .unlinked(let seq), .altered(let seq): seq
            case .headMissing(let head, _), .headMismatch(let head, _): head.seq
            }
        }

        public var description: String {
            switch self {
            case .gap(let seq, let expected): "entry \(expected) is missing: the entry after \(expected - 1) is \(seq)"
            case .unlinked(let seq):
                "entry \(seq) does not follow the entry before it (its previous hash differs): entries were removed, reordered or inserted"
            case .altered(let seq): "entry \(seq) was altered: its content does not match its hash"
            case .headMissing(let head, let last): "the log ends at entry \(last), before the published head \(head.text): its tail was cut"
            case .headMismatch(let head, let found):
                "entry \(head.seq) has the hash \(found), not the published head's \(head.hash): the log was rewritten"
            }
        }
    }

    /// Published heads to hold the chain to, by sequence number.
    private var heads: [Int64: AuditHead]
    private(set) public var last: AuditHead = AuditHead(seq: 0, hash: AuditHash.genesis)
    private(set) public var firstBreak: Break?

    public init(heads: [AuditHead] = []) {
        self.heads = Dictionary(heads.map { ($0.seq, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Takes the next entry; after a break the rest is not looked at (the first break is what an investigator needs).
    public mutating func take(_ entry: AuditEntry) {
        guard firstBreak == nil else { return }
        if entry.seq != last.seq + 1 {
            firstBreak = .gap(seq: entry.seq, expected: last.seq + 1)
        } else if AuditHash.of(entry) != entry.hash {
            firstBreak = .altered(seq: entry.seq)
        } else if entry.previous_hash != last.hash {
            firstBreak = .unlinked(seq: entry.seq)
        } else if let head = heads[entry.seq], head.hash != entry.hash {
            firstBreak = .headMismatch(head, found: entry.hash)
        }
        if firstBreak == nil { last = AuditHead(seq: entry.seq, hash: entry.hash) }
    }

    /// Once every entry was taken: a head beyond the end means the tail is gone.
    public mutating func finish() {
        guard firstBreak == nil, let beyond = heads.values.filter({ $0.seq > last.seq }).min(by: { $0.seq < $1.seq }) else { return }
        firstBreak = .headMissing(beyond, lastSeq: last.seq)
    }
}
