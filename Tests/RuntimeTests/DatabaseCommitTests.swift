import CustodianRuntime
import Logging
import PostgresNIO
import ServiceTestSupport
import Testing

/// A caller sees a write succeed only once PostgreSQL committed it. The case that lost acknowledged uploads at a
/// PostgreSQL restart: the extended query protocol commits a statement's implicit transaction at the Sync after its
/// CommandComplete, and postgres-nio ends the query at CommandComplete, so a failure at commit time came too late.
/// A deferred constraint trigger fails every commit deterministically, where a fast shutdown does it by chance.
@Suite("Database: success means committed")
struct DatabaseCommitTests {
    static let logger = Logger(label: "database-commit-tests")

    /// Runs `body` with a database whose table `probe` refuses every commit that inserted into it.
    func withRefusingTable(_ body: @Sendable (Database, PostgresClient) async throws -> Void) async throws {
        let (admin, _) = try await TestPostgres.shared.makeDatabase(for: [], logger: Self.logger)
        try await PostgresClient.withClient(url: admin, logger: Self.logger) { client in
            for statement in [
                "CREATE TABLE probe (id integer)",
                "CREATE FUNCTION refuse_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused at commit'; END $$",
                "CREATE CONSTRAINT TRIGGER refuse AFTER INSERT ON probe DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_commit()",
            ] {
                try await client.query(PostgresQuery(unsafeSQL: statement), logger: Self.logger)
            }
            try await body(Database(client: client), client)
        }
    }

    /// Rows with `id`, or -1 when the count itself failed three times. The pool may first lend the connection that a
    /// refused commit closed (postgres-nio closes it on the error it did not expect), so one failure is not the answer.
    func stored(_ client: PostgresClient, id: Int) async -> Int {
        for _ in 0..<3 {
            if let count = try? await count(client, id: id) { return count }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return -1
    }

    func count(_ client: PostgresClient, id: Int) async throws -> Int {
        // Through `Database`, which refuses a lent connection that closed: a bare query on it would never end.
        let rows = try await Database(client: client).query("SELECT count(*)::integer FROM probe WHERE id = \(id)", logger: Self.logger)
        for try await value in rows.decode(Int.self) { return value }
        return -1
    }

    struct Insert: PostgresPreparedStatement {
        static let sql = "INSERT INTO probe (id) VALUES ($1) RETURNING id"
        typealias Row = Int
        var id: Int
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(id)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> Int { try row.decode(Int.self) }
    }

    /// Why `Database` wraps writes: the bare client reports this insert as done although its commit failed. When this
    /// fails, postgres-nio waits for ReadyForQuery now, and the wrapping could go.
    @Test func theBareClientReportsAStatementBeforeItsCommit() async throws {
        try await withRefusingTable { _, client in
            var reported = false
            do {
                try await client.query("INSERT INTO probe (id) VALUES (1)", logger: Self.logger)
                reported = true
            } catch {}
            #expect(reported, "postgres-nio now reports commit-time errors of an implicit transaction")
            #expect(await stored(client, id: 1) == 0)
        }
    }

    @Test func aWriteWhoseCommitFailsIsAnError() async throws {
        try await withRefusingTable { database, client in
            await #expect(throws: PSQLError.self) { try await database.query("INSERT INTO probe (id) VALUES (2)", logger: Self.logger) }
            await #expect(throws: PSQLError.self) { try await database.execute(Insert(id: 3), logger: Self.logger) }
            #expect(await stored(client, id: 2) == 0)
            #expect(await stored(client, id: 3) == 0)
            // And the error is what clients get for an unavailable database, not a 500.
            do {
                _ = try await database.execute(Insert(id: 4), logger: Self.logger)
                Issue.record("the insert was reported as stored")
            } catch {
                #expect(DatabaseErrors.rpcError(for: error, logger: Self.logger) != nil)
            }
        }
    }

    /// Ends `connection`'s backend from another connection, as a fast shutdown of PostgreSQL does, and returns once the
    /// connection has seen it close.
    static func endBackend(of connection: DatabaseConnection, from client: PostgresClient) async throws {
        var backend = 0
        for try await pid in try await connection.query("SELECT pg_backend_pid()", logger: Self.logger).decode(Int.self) { backend = pid }
        try await Database(client: client).query("SELECT pg_terminate_backend(\(backend)::integer)", logger: Self.logger)
        while !connection.isClosed { try await Task.sleep(for: .milliseconds(10)) }
    }

    /// What a fast shutdown of PostgreSQL does to a transaction: its backend is ended and the connection closes. The
    /// body's error reaches the caller, without a ROLLBACK sent on the closed connection, where postgres-nio would drop
    /// it and the call wait for ever (the gateway answered 504 after its whole deadline).
    @Test func aTransactionWhoseConnectionClosedEndsWithItsError() async throws {
        struct Ended: Error {}
        try await withRefusingTable { database, client in
            let outcome = await Self.outcome {
                do {
                    try await database.withTransaction(logger: Self.logger) { connection in
                        try await Self.endBackend(of: connection, from: client)
                        throw Ended()
                    } as Void
                    return "committed"
                } catch {
                    return error is Ended ? "ended" : "\(String(reflecting: error))"
                }
            }
            #expect(outcome == "ended")
        }
    }

    /// The same shutdown falling between two statements of a transaction: the next statement is written to a channel
    /// that has closed, which postgres-nio drops without failing the query. `DatabaseConnection` ends it as the database
    /// being unavailable (503 with Retry-After) at once, for a plain query and for a prepared statement.
    @Test(arguments: ["query", "prepared"])
    func aStatementAfterTheConnectionClosedEndsAsUnavailable(_ kind: String) async throws {
        try await withRefusingTable { database, client in
            let outcome = await Self.outcome {
                do {
                    try await database.withTransaction(logger: Self.logger) { connection in
                        try await Self.endBackend(of: connection, from: client)
                        // Long enough for NIO to have taken the closed channel's handlers away: from then on a write is dropped.
                        try await Task.sleep(for: .milliseconds(200))
                        if kind == "query" {
                            try await connection.query("INSERT INTO probe (id) VALUES (8)", logger: Self.logger)
                        } else {
                            _ = try await connection.execute(Insert(id: 8), logger: Self.logger)
                        }
                    } as Void
                    return "committed"
                } catch {
                    let answer = DatabaseErrors.rpcError(for: error, logger: Self.logger)
                    return answer?.code == .unavailable ? "unavailable" : String(reflecting: error)
                }
            }
            #expect(outcome == "unavailable")
            #expect(await stored(client, id: 8) == 0)
        }
    }

    /// What `body` says, or "waited for ever" when it has said nothing within 10 s. It runs unstructured, so that a call
    /// that never ends fails the test instead of hanging it.
    static func outcome(_ body: @escaping @Sendable () async -> String) async -> String {
        let (outcomes, outcome) = AsyncStream<String>.makeStream()
        Task { outcome.yield(await body()) }
        Task {
            try? await Task.sleep(for: .seconds(10))
            outcome.yield("waited for ever")
        }
        var iterator = outcomes.makeAsyncIterator()
        return await iterator.next() ?? "no outcome"
    }

    @Test func aTransactionThatFailedInsideIsNotReportedAsCommitted() async throws {
        try await withRefusingTable { database, client in
            try await client.query("DROP TRIGGER refuse ON probe", logger: Self.logger)
            await #expect(throws: TransactionRolledBack.self) {
                try await database.withTransaction(logger: Self.logger) { connection in
                    try await connection.query("INSERT INTO probe (id) VALUES (5)", logger: Self.logger)
                    // An error the body swallows still aborts the transaction; PostgreSQL then answers COMMIT with ROLLBACK.
                    _ = try? await connection.query("SELECT 1 / 0", logger: Self.logger)
                }
            }
            #expect(await stored(client, id: 5) == 0)
            // A transaction without trouble commits, and reads run as they are.
            try await database.withTransaction(logger: Self.logger) { connection in
                _ = try await connection.query("INSERT INTO probe (id) VALUES (6)", logger: Self.logger)
            } as Void
            #expect(await stored(client, id: 6) == 1)
            try await database.query("INSERT INTO probe (id) VALUES (7)", logger: Self.logger)
            #expect(await stored(client, id: 7) == 1)
        }
    }
}

@Suite("SQL text: which statements may write")
struct SQLTextTests {
    @Test(arguments: [
        "INSERT INTO x (a) VALUES ($1)",
        "WITH device AS (SELECT id FROM devices.devices WHERE t = $1), upload AS (INSERT INTO devices.uploads (a) SELECT 1 RETURNING id) SELECT 1",
        "update vault.items set value = $1",
        "DELETE FROM routes.routes WHERE id = $1",
        "SELECT devices.create_measurement_partition(month::date) FROM months",
        "SELECT devices.create_measurement_partition ($1)",
        "SELECT id FROM auth.admin_tokens WHERE hash = $1 FOR UPDATE",
        "CREATE TABLE t (a int)",
        "DO $$ BEGIN PERFORM 1; END $$",
        "SELECT nextval('s')",
        "TRUNCATE devices.measurements_2020_01",
        "MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE",
    ])
    func writes(_ sql: String) {
        #expect(SQLText.mayWrite(sql), "\(sql)")
    }

    @Test(arguments: [
        "SELECT 1",
        "SELECT d.id, d.updated_at, created_at, deleted FROM devices.devices d JOIN devices.buildings b ON b.id = d.building_id WHERE d.session_token_hash = $1",
        "SELECT count(*) FROM vault.items WHERE repo_id = $1 AND nonce = ANY($2)",
        "SELECT encode(x, 'hex'), now(), coalesce(array_agg(id ORDER BY id), '{}') FROM t GROUP BY y",
        "WITH page AS (SELECT id FROM devices.measurements WHERE id > $1 ORDER BY id LIMIT 100) SELECT * FROM page",
        "SELECT pg_advisory_xact_lock(hashtext($1))",
        "SELECT id FROM statistics.submissions s WHERE s.id IN (SELECT id FROM x)",
    ])
    func reads(_ sql: String) {
        #expect(!SQLText.mayWrite(sql), "\(sql)")
    }
}
