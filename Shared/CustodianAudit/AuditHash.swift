import CustodianContracts
import Crypto
import CustodianSecurity
import Foundation

/// How an entry is hashed: SHA-256 of the previous entry's hash and every field of the entry, each length-prefixed,
/// so that no two different entries encode alike. The writer and `custodian audit verify` both use this one function.
public enum AuditHash {
    /// The "previous hash" of the first entry.
    public static let genesis = String(repeating: "0", count: 64)

    public static func of(seq: Int64, atMicros: Int64, record: AuditRecord, previous: String) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(256)
        func field(_ text: String?) {
            guard let text else {
                bytes.append(contentsOf: [0xFF, 0xFF, 0xFF, 0xFF])
                return
            }
            let utf8 = Array(text.utf8)
            withUnsafeBytes(of: UInt32(utf8.count).bigEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: utf8)
        }
        field(previous)
        field(String(seq))
        field(String(atMicros))
        field(record.phase.rawValue)
        field(record.identity)
        field(record.identity_label)
        field(record.scope)
        field(record.action)
        field(String(record.targets.count))
        for target in record.targets { field(target) }
        field(record.query)
        field(record.request_id)
        field(record.status.map(String.init))
        field(record.rows.map(String.init))
        field(record.bytes.map(String.init))
        return Hex.encode(SHA256.hash(data: bytes))
    }

    public static func of(_ entry: AuditEntry) -> String {
        of(seq: entry.seq, atMicros: entry.at_micros, record: entry.record, previous: entry.previous_hash)
    }
}
