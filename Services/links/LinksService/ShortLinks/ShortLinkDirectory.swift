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

    /// `q` matches the start of a title in any case, or the start of a code as far as the list shows codes: a longer
    /// prefix would tell whoever can list links whether a code goes on so, a character at a time, until the whole code
    /// (the link's secret) was known. The shown form (`k3v9…`) is taken too. Both are ranges of an index (LinksMigrations 4),
    /// as is a page without `q` (newest first, by `short_links_by_creation`).
    func list(_ input: ShortLinksQuery, context: CallContext) async throws -> ShortLinkPage {
        let (search, limit, cursor) = (input.search, input.limit, input.before)
        let code = search.flatMap(Self.shownCodePrefix)
        let rows = try await database.query(
            """
            SELECT code, title, created_at, expires_at, expires_at <= now(), (extract(epoch FROM created_at) * 1000000)::bigint,
                   encode(sha256(code::bytea), 'hex')
            FROM links.short_links
            WHERE (\(search)::text IS NULL OR starts_with(code, \(code)) OR starts_with(lower(title), lower(\(search))))
              AND (\(cursor == nil) OR (created_at, sha256(code::bytea))
                < (timestamptz 'epoch' + \(cursor?.micros ?? 0) * interval '1 microsecond', decode(\(cursor?.digest ?? ""), 'hex')))
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

    /// The code prefix `q` can be: up to as many characters of a code as the list shows, in the codes' alphabet.
    static func shownCodePrefix(_ search: String) -> String? {
        var prefix = search.lowercased()
        if prefix.hasSuffix("…") { prefix.removeLast() }
        guard (1...shownCodeLength).contains(prefix.count), prefix.allSatisfy(ShortLinkCode.alphabet.contains) else { return nil }
        return prefix
    }

    static func iso(_ date: Date) -> String { Date.ISO8601FormatStyle().format(date) }
}
