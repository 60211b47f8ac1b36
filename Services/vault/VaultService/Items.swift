import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianRuntime
import CustodianSodium
import CustodianVault
import Foundation
import Logging
import PostgresNIO

/// Records in repos: written one at a time or in batches (the app deletes from its cache only what was
/// written), read back in pages, and decrypted for their owner.
struct Items: Sendable {
    let database: Database
    let repos: Repos

    /// The most record bytes one page may carry: the answer travels base64-encoded in one RPC frame (8 MiB).
    static let maximumPageBytes = 4 * 1024 * 1024

    /// `POST /api/repos/{identifier}/items`: one record → `{"id"}`; an array → `{"processed","responses"}`,
    /// 200 when every record was written and 400 otherwise (the good ones are written all the same, as OwnYourData's
    /// batch answers show). Each record was checked as it was read (``VaultRecord``).
    func write(_ input: ItemsWrite, context: CallContext) async throws -> RawHTTPReply {
        let repo = try await repos.access(input.identifier, context: context, need: .write, createIfMissing: true)
        let valid = input.records.compactMap { try? $0.checked.get() }
        var ids = try await store(valid, repo: repo, logger: context.logger).makeIterator()
        var responses: [JSONValue] = []
        for record in input.records {
            switch record.checked {
            case .success:
                guard let id = ids.next() else { throw RPCError.internal("item was not stored") }
                responses.append(["id": .int(id), "status": 200])
            case .failure(let refusal):
                responses.append(["error": .string(refusal.message), "status": 400])
            }
        }
        let allWritten = responses.allSatisfy { $0["status"] == .int(200) }
        if !input.isBatch {
            if let id = responses[0]["id"] { return try Self.json(["id": id], status: 200) }
            return try Self.json(["error": "invalid_record", "error_description": responses[0]["error"] ?? .null], status: 400)
        }
        return try Self.json(["processed": .int(Int64(input.records.count)), "responses": .array(responses)], status: allWritten ? 200 : 400)
    }

    /// Stores the records in one statement and returns their ids in order. An encrypted record whose nonce the repo
    /// holds already (a retry) is not stored again: it gets the first copy's id, looked up only when there is one.
    private func store(_ records: [VaultRecord.Storable], repo: Repos.Repo, logger: Logger) async throws -> [Int64] {
        guard !records.isEmpty else { return [] }
        let values = records.map(\.text), nonces = records.map(\.nonce)
        let stored: StoreItems<NewItems>.Row
        do {
            stored = try await database.execute(StoreItems<NewItems>(repoID: repo.id, values: values, nonces: nonces), logger: logger)[0]
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            // A nonce the repo holds already (a retried upload) or twice in the batch: nothing was stored; again,
            // skipping those.
            stored = try await database.execute(StoreItems<RetriedItems>(repoID: repo.id, values: values, nonces: nonces), logger: logger)[0]
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23503" {
            // The repo went between finding it and writing to it: its user was erased meanwhile (docs/erasure.md).
            throw RPCError.notFound("Repo \(repo.identifier) not found", reason: "not_found")
        }
        let inserted = zip(stored.ids, stored.nonces).map { ($0, $1.isEmpty ? nil : $1) }
        // PostgreSQL inserts the rows of `unnest` in order, drawing ascending ids: a record without a nonce
        // is the next returned row without one; one with a nonce is found by it.
        var byNonce: [String: Int64] = [:]
        var withoutNonce = inserted.filter { $0.1 == nil }.map(\.0).makeIterator()
        for (id, nonce) in inserted { if let nonce { byNonce[nonce] = id } }
        let retried = Set(records.compactMap(\.nonce)).subtracting(byNonce.keys)
        if !retried.isEmpty {
            let rows = try await database.query(
                "SELECT id, nonce FROM vault.items WHERE repo_id = \(repo.id) AND nonce = ANY(\(Array(retried)))", logger: logger)
            for try await (id, nonce) in rows.decode((Int64, String).self) { byNonce[nonce] = id }
        }
        return try records.map { record in
            let id = record.nonce.map { byNonce[$0] } ?? withoutNonce.next()
            guard let id else { throw RPCError.internal("item was not stored") }
            return id
        }
    }

    /// The batch as one prepared statement, in the batch's order; the ids and nonces of the rows stored come back
    /// as two arrays in one row (a thousand rows cost the client several milliseconds more than one row of a
    /// thousand). A batch is first inserted as it is, which costs PostgreSQL a fifth less than checking each row for
    /// a conflict first (docs/benchmarks.md); only a batch that meets a nonce stored before is sent again with
    /// `ON CONFLICT DO NOTHING`.
    struct StoreItems<Insert: ItemsInsert>: PostgresPreparedStatement {
        static var sql: String {
            """
            WITH stored AS (\(Insert.sql))
            SELECT coalesce(array_agg(id ORDER BY id), '{}'), coalesce(array_agg(coalesce(nonce, '') ORDER BY id), '{}') FROM stored
            """
        }
        /// Ids in the order the rows were stored; a record without a nonce has the empty string.
        typealias Row = (ids: [Int64], nonces: [String])

        var repoID: Int64
        var values: [String]
        /// A record without a nonce (not encrypted) has the empty string here: arrays carry no NULLs this way.
        var nonces: [String?]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(repoID)
            bindings.append(values)
            bindings.append(nonces.map { $0 ?? "" })
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            let (ids, nonces) = try row.decode(([Int64], [String]).self)
            return (ids, nonces)
        }
    }

    enum NewItems: ItemsInsert {
        static let sql = """
            INSERT INTO vault.items (repo_id, value, nonce)
            SELECT $1, r.value::jsonb, NULLIF(r.nonce, '') FROM unnest($2::text[], $3::text[]) AS r(value, nonce)
            RETURNING id, nonce
            """
    }

    enum RetriedItems: ItemsInsert {
        static let sql = """
            INSERT INTO vault.items (repo_id, value, nonce)
            SELECT $1, r.value::jsonb, NULLIF(r.nonce, '') FROM unnest($2::text[], $3::text[]) AS r(value, nonce)
            ON CONFLICT (repo_id, nonce) DO NOTHING
            RETURNING id, nonce
            """
    }

    /// `DELETE /api/items/{id}`: the owner's record, or one in a repo the module may write to; any other id is
    /// answered as one that does not exist, so that a caller learns nothing of others' records.
    func delete(_ input: ItemDeletion, context: CallContext) async throws -> DeletedItem {
        let principal = try VaultPrincipal(context)
        let notFound = RPCError.notFound("Item \(input.id) not found", reason: "not_found")
        guard let id = Int64(input.id) else { throw notFound }
        let rows = try await database.query(
            """
            DELETE FROM vault.items i USING vault.repos r
            WHERE i.id = \(id) AND r.id = i.repo_id AND r.user_id = \(principal.userID)
              AND (\(principal.moduleID)::bigint IS NULL OR EXISTS (
                    SELECT 1 FROM vault.permissions p WHERE p.repo_id = r.id AND p.module_id = \(principal.moduleID) AND p.can_write))
            RETURNING i.id
            """, logger: context.logger)
        for try await deleted in rows.decode(Int64.self) { return DeletedItem(id: deleted) }
        throw notFound
    }

    /// `GET /api/repos/{identifier}/items?page=&size=&last=&last_days=`, newest last, with `Total-Count` and `Link`.
    func read(_ input: ItemsRead, context: CallContext) async throws -> RawHTTPReply {
        let repo = try await repos.access(input.identifier, context: context, need: .read, createIfMissing: false)
        let paging = try input.paging.get()
        let (items, total) = try await fetch(repo: repo, paging: paging, logger: context.logger)
        var headers = ["Total-Count": String(total)]
        let pages = max(1, (total + paging.size - 1) / paging.size)
        var links: [String] = []
        let base = "/api/repos/\(repo.identifier)/items"
        let narrowing = (paging.last.map { "&last=\($0)" } ?? "") + (paging.lastDays.map { "&last_days=\($0)" } ?? "")
        func link(_ page: Int, _ rel: String) -> String { "<\(base)?page=\(page)&size=\(paging.size)\(narrowing)>; rel=\"\(rel)\"" }
        if paging.page < pages { links.append(link(paging.page + 1, "next")) }
        if paging.page > 1 { links.append(link(min(paging.page - 1, pages), "prev")) }
        links.append(link(1, "first"))
        links.append(link(pages, "last"))
        headers["Link"] = links.joined(separator: ", ")
        return try Self.json(.array(items.map(\.json)), status: 200, headers: headers)
    }

    struct StoredItem {
        var id: Int64
        var record: JSONValue
        var createdAt: Date

        var json: JSONValue {
            guard case .object(var fields) = record else { return record }
            fields["id"] = .int(id)
            return .object(fields)
        }
    }

    /// The items of a page; `last` and `last_days` narrow the set before it is paged. One statement, so that the count
    /// and the page come from one snapshot. The count walks the repo's index only; the page is read from whichever
    /// end of the repo's index is nearer, so the newest items of a large repo cost what the oldest do, instead of
    /// reading every item of the repo as a sort would.
    private func fetch(repo: Repos.Repo, paging: ItemsPaging, logger: Logger) async throws -> ([StoredItem], Int) {
        let since = paging.lastDays.map { Date().addingTimeInterval(-Double($0) * 86400) }
        let limitLast = paging.last ?? Int(Int32.max)
        let offset = (paging.page - 1) * paging.size
        let rows = try await database.query(
            """
            WITH matching AS (
                SELECT count(*) AS n FROM vault.items
                WHERE repo_id = \(repo.id) AND (\(since)::timestamptz IS NULL OR created_at >= \(since)::timestamptz)),
            chosen AS (SELECT n, least(n, \(limitLast)) AS total FROM matching),
            page AS (
                SELECT total, (n - total) + \(offset) AS from_oldest,
                       greatest(least(\(paging.size), total - \(offset)), 0) AS take FROM chosen),
            ends AS (SELECT *, greatest(total - \(offset) - take, 0) AS from_newest FROM page)
            SELECT item.id, item.value::text, item.created_at, ends.total::integer
            FROM ends LEFT JOIN LATERAL (
                (SELECT id, value, created_at FROM vault.items
                 WHERE repo_id = \(repo.id) AND (\(since)::timestamptz IS NULL OR created_at >= \(since)::timestamptz)
                 ORDER BY repo_id, id
                 OFFSET ends.from_oldest LIMIT CASE WHEN ends.from_oldest <= ends.from_newest THEN ends.take ELSE 0 END)
                UNION ALL
                (SELECT id, value, created_at FROM vault.items
                 WHERE repo_id = \(repo.id) AND (\(since)::timestamptz IS NULL OR created_at >= \(since)::timestamptz)
                 ORDER BY repo_id DESC, id DESC
                 OFFSET ends.from_newest LIMIT CASE WHEN ends.from_oldest <= ends.from_newest THEN 0 ELSE ends.take END)
            ) AS item ON true
            ORDER BY item.id
            """, logger: logger)
        var items: [StoredItem] = []
        var total = 0
        var bytes = 0
        for try await (id, text, created, count) in rows.decode((Int64?, String?, Date?, Int).self) {
            total = count
            guard let id, let text, let created else { continue }  // an empty page: the count alone
            bytes += text.utf8.count
            items.append(StoredItem(id: id, record: (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))) ?? .null, createdAt: created))
        }
        guard bytes <= Self.maximumPageBytes else {
            let fitting = max(1, paging.size * Self.maximumPageBytes / bytes)
            throw RPCError.badRequest(
                "These \(items.count) records hold \(bytes / 1024) KiB, more than a page may (\(Self.maximumPageBytes / 1024) KiB): ask for fewer at a time, size=\(fitting) or less",
                reason: "page_too_large")
        }
        return (items, total)
    }

    /// `POST /api/repos/{identifier}/items/decrypted {"password"}`: the owner's items in clear; the password
    /// opens the owner's key, which opens the repo's. Records that are not encrypted come back as they are.
    func decrypted(_ input: ItemsDecryption, context: CallContext) async throws -> [DecryptedItem] {
        let principal = try VaultPrincipal(context)
        let repo = try await repos.access(input.identifier, context: context, need: .read, createIfMissing: false)
        let secretKey = try await repos.secretKey(repo, userID: principal.userID, password: input.password, logger: context.logger)
        let (items, _) = try await fetch(repo: repo, paging: try input.paging.get(), logger: context.logger)
        return items.map { item in
            guard let record = try? JSONDecoder().decode(OYDRecord.self, from: JSONEncoder().encode(item.record)), record.version == OYDRecord.version
            else {
                return DecryptedItem(id: item.id, data: item.record)
            }
            guard let text = try? record.open(secretKey: secretKey) else {
                return DecryptedItem(id: item.id, error: "this record does not open with the repo's key")
            }
            let data = (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))) ?? .string(text)
            return DecryptedItem(id: item.id, data: data)
        }
    }

    static func json(_ body: JSONValue, status: Int, headers: [String: String] = [:]) throws -> RawHTTPReply {
        RawHTTPReply(
            status: status, headers: headers.merging(["Content-Type": "application/json"]) { _, new in new },
            body: Data(body.jsonBytes + [UInt8(ascii: "\n")]))
    }
}

/// The text of one way to insert a batch of items (``Items/StoreItems``).
protocol ItemsInsert: Sendable {
    static var sql: String { get }
}
