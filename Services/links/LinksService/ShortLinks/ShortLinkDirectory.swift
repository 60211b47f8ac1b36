import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianRuntime
import Foundation
import PostgresNIO

/// `GET /admin/v1/links`: the short links, newest first, for an operator to see what is out there and what expired.
/// A link's code is its only secret (an account's activation link opens the account), so only its first characters
/// are shown: a link is handed out once, when it is made.
struct ShortLinkDirectory: Sendable {
    let database: Database

    struct Entry: Encodable, Sendable {
        var code_prefix: String
        @ExplicitNull var title: String?
        var created_at: String
        @ExplicitNull var expires_at: String?
        var expired: Bool
    }

    struct Page: Encodable, Sendable {
        var links: [Entry]
        /// Pass as `before` for the next (older) page; null on the last one.
        @ExplicitNull var next_before: String?
    }

    static let shownCodeLength = 4

    func list(_ input: HTTPInput, context: CallContext) async throws -> Page {
        let limit = try input.integerQueryValue("limit", default: 100, in: 1...1000)
        let cursor = try input.singleQueryValue("before").map(Self.cursor)
        let rows = try await database.query(
            """
            SELECT code, title, created_at, expires_at, expires_at <= now(), (extract(epoch FROM created_at) * 1000000)::bigint,
                   encode(sha256(code::bytea), 'hex')
            FROM links.short_links
            WHERE \(cursor == nil) OR (created_at, sha256(code::bytea))
                < (timestamptz 'epoch' + \(cursor?.micros ?? 0) * interval '1 microsecond', decode(\(cursor?.digest ?? ""), 'hex'))
            ORDER BY created_at DESC, sha256(code::bytea) DESC LIMIT \(limit)
            """, logger: context.logger)
        var links: [Entry] = []
        var last: String?
        for try await (code, title, created, expires, expired, micros, digest) in rows.decode((String, String?, Date, Date?, Bool?, Int64, String).self) {
            links.append(Entry(code_prefix: String(code.prefix(Self.shownCodeLength)) + "…", title: title, created_at: Self.iso(created),
                               expires_at: expires.map(Self.iso), expired: expired ?? false))
            last = "\(micros)-\(digest)"
        }
        return Page(links: links, next_before: links.count == limit ? last : nil)
    }

    /// `<microseconds since 1970>-<SHA-256 of the code, hex>`, as `next_before` gives it: links made in the same
    /// microsecond keep an order, and the cursor, which travels in URLs, does not give the code away.
    static func cursor(_ text: String) throws -> (micros: Int64, digest: String) {
        let parts = text.split(separator: "-", maxSplits: 1)
        guard parts.count == 2, let micros = Int64(parts[0]), micros >= 0, parts[1].utf8.count == 64, parts[1].allSatisfy(\.isHexDigit) else {
            throw RPCError.badRequest("before must be a next_before value of an earlier page", reason: "invalid_query")
        }
        return (micros, parts[1].lowercased())
    }

    static func iso(_ date: Date) -> String { Date.ISO8601FormatStyle().format(date) }
}
