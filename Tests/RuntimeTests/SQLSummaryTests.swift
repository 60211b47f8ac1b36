import Testing
@testable import CustodianRuntime

/// A statement's span is named by what ran where (docs/operations.md, "Tracing"): never a value, even one written into
/// the text as a literal.
@Suite("SQL statement summaries")
struct SQLSummaryTests {
    @Test func theCommandAndTheFirstTableNamed() {
        let cases: [(String, String, String?)] = [
            ("SELECT id FROM devices.uploads WHERE device_id = $1", "SELECT", "devices.uploads"),
            ("insert into vault.items (repo_id, value) values ($1, $2) returning id", "INSERT", "vault.items"),
            (#"UPDATE "auth"."sessions" SET revoked = true WHERE id = $1"#, "UPDATE", "auth.sessions"),
            (
                "WITH gone AS (DELETE FROM devices.measurements WHERE device_id = $1 RETURNING 1) SELECT count(*) FROM gone", "WITH",
                "devices.measurements"
            ),
            ("  SELECT 1", "SELECT", nil),
            ("BEGIN", "BEGIN", nil),
            ("SELECT a.x FROM links.links a JOIN links.clicks c ON c.link = a.id", "SELECT", "links.links"),
        ]
        for (sql, operation, collection) in cases {
            let summary = SQLText.summary(sql)
            #expect(summary.operation == operation, "\(sql)")
            #expect(summary.collection == collection, "\(sql)")
        }
    }

    @Test func aLiteralIsNeverTakenForATable() {
        // A value written into the text, where a table name would stand: left out rather than recorded.
        #expect(SQLText.summary("SELECT * FROM 'Jane Doe'").collection == nil)
        #expect(SQLText.summary("SELECT * FROM $1").collection == nil)
        #expect(SQLText.summary("SELECT * FROM 0612345678").collection == nil)
        // Text that starts with no command at all (a literal) gets no command either.
        #expect(SQLText.summary("'Jane' || 'Doe'").operation == "SQL")
        #expect(SQLText.summary("").operation == "SQL")
    }
}
