import Logging
import PostgresNIO

extension PostgresConnection {
    /// How many rows `statement` deletes or changes (a `DELETE`/`UPDATE`, given a `RETURNING 1` here) or returns (a
    /// `SELECT`), counted by the database rather than sent over: an erasure's receipt counts millions of readings.
    public func count(_ statement: PostgresQuery, logger: Logger) async throws -> Int {
        var query: PostgresQuery = "WITH counted AS ("
        query.sql += statement.sql
        if !statement.sql.hasPrefix("SELECT") { query.sql += " RETURNING 1" }
        query.sql += ") SELECT count(*)::bigint FROM counted"
        query.binds = statement.binds
        for try await count in try await self.query(query, logger: logger).decode(Int.self) { return count }
        return 0
    }
}
