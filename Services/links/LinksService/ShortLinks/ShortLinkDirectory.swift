import CustodianContracts
import CustodianRPC
import CustodianRuntime
import Foundation
import PostgresNIO

/// `GET /admin/v1/links`: the short links, newest first, for an operator to see what is out there and what expired.
/// A link's code is its only secret (an account's activation link opens the account), so only its first characters
/// are shown: a link is handed out once, when it is made.
struct ShortLinkDirectory: Sendable {
    let database: Database

    static let shownCodeLength = 4

    func list(_ input: ShortLinksQuery, context: CallContext) async throws -> ShortLinkPage {
        let (limit, cursor) = (input.limit, input.before)
        let rows = try await database.query(
            """
            SELECT code, title, created_at, expires_at, expires_at <= now(), (extract(epoch FROM created_at) * 1000000)::bigint,
                   encode(sha256(code::bytea), 'hex')
            FROM links.short_links
            WHERE \(cursor == nil) OR (created_at, sha256(code::bytea))
                < (timestamptz 'epoch' + \(cursor?.micros ?? 0) * interval '1 microsecond', decode(\(cursor?.digest ?? ""), 'hex'))
            ORDER BY created_at DESC, sha256(code::bytea) DESC LIMIT \(limit)
            """, logger: context.logger)
        var links: [ShortLinkPage.Entry] = []
        var last: String?
        for try await (code, title, created, expires, expired, micros, digest) in rows.decode(
            (String, String?, Date, Date?, Bool?, Int64, String).self)
        {
            links.append(
                ShortLinkPage.Entry(
                    code_prefix: String(code.prefix(Self.shownCodeLength)) + "…", title: title, created_at: Self.iso(created),
                    expires_at: expires.map(Self.iso), expired: expired ?? false))
            last = "\(micros)-\(digest)"
        }
        return ShortLinkPage(links: links, next_before: links.count == limit ? last : nil)
    }

    static func iso(_ date: Date) -> String { Date.ISO8601FormatStyle().format(date) }
}
