/// What a statement's text says about it, without parsing SQL: enough to decide which statements ``Database`` runs in
/// a transaction of their own so that their success means committed.
public enum SQLText {
    /// Whether the statement may change data: it names a data-changing command (INSERT, UPDATE, DELETE, MERGE, COPY,
    /// DDL, GRANT, a `DO` block, a sequence bump) or calls a schema-qualified function (ours, such as
    /// `devices.create_measurement_partition(…)`, may write; PostgreSQL's built-ins are called unqualified). Errs on the
    /// side of a write: a read it takes for one (`… FOR UPDATE`, a keyword in a literal) only costs two round trips.
    public static func mayWrite(_ sql: String) -> Bool {
        var sql = sql
        return sql.withUTF8 { bytes in
            var index = 0
            var previousWasQualifier = false
            while index < bytes.count {
                let byte = bytes[index]
                guard isWordByte(byte) else {
                    index += 1
                    continue
                }
                let start = index
                while index < bytes.count, isWordByte(bytes[index]) { index += 1 }
                let word = UnsafeBufferPointer(rebasing: bytes[start..<index])
                if writingWords.contains(where: { equalsIgnoringCase(word, $0) }) { return true }
                // `schema.function(`: the word after a dot, followed by an opening parenthesis.
                var next = index
                while next < bytes.count, bytes[next] == UInt8(ascii: " ") { next += 1 }
                if previousWasQualifier, next < bytes.count, bytes[next] == UInt8(ascii: "(") { return true }
                previousWasQualifier = index < bytes.count && bytes[index] == UInt8(ascii: ".")
                if previousWasQualifier { index += 1 }
            }
            return false
        }
    }

    private static let writingWords: [[UInt8]] = [
        "INSERT", "UPDATE", "DELETE", "MERGE", "COPY", "CREATE", "ALTER", "DROP", "TRUNCATE", "GRANT", "REVOKE", "CALL",
        "DO", "NEXTVAL", "SETVAL", "LOCK", "REFRESH", "VACUUM", "CLUSTER", "REINDEX", "COMMENT",
    ].map { Array($0.utf8) }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
    }

    /// `word` equals `upper` (upper-case ASCII) in any case.
    private static func equalsIgnoringCase(_ word: UnsafeBufferPointer<UInt8>, _ upper: [UInt8]) -> Bool {
        guard word.count == upper.count else { return false }
        for (byte, expected) in zip(word, upper) where byte & ~0x20 != expected { return false }
        return true
    }
}
