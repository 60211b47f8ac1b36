import CustodianContracts
import CustodianHTTP
import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import PostgresNIO

/// One row of `links.short_links`, as the resolver needs it.
struct StoredShortLink: Sendable {
    var appURL: String
    var title: String?
    var androidStoreURL: String
    var iosStoreURL: String
    var expired: Bool
}

/// Self-hosted short links, the replacement for Firebase Dynamic Links (gone since 2025-08-25):
/// `<public base URL>/l/<code>` sends a phone into the app and shows everyone else the code and the stores.
struct ShortLinks: Sendable {
    let database: Database
    let settings: ShortLinkSettings
    /// Seals each app URL, which may carry a secret, bound to its code.
    let sealer: Sealer

    /// Links made before app URLs were sealed keep theirs in `app_url`, in the clear, and have no sealed value.
    static let sealed = SealedColumn(table: "links.short_links", column: "app_url_sealed", key: "code", contextPrefix: "links-short-link:")

    static func sealingContext(_ code: String) -> String { sealed.context(code) }

    /// An expired link answers 410 for a week, so that a person following an old one learns it expired rather than
    /// that it never was; after that its row (and the app URL it sealed) goes.
    static let expiredRowsUpkeep = Upkeep("expired short links", every: .seconds(3600)) { database, logger in
        try await database.query("DELETE FROM links.short_links WHERE expires_at < now() - interval '7 days'", logger: logger)
    }

    func create(_ input: ShortLinkInput, names: ShortLinkInput.FieldNames, logger: Logger) async throws -> ShortLink {
        let link = try input.validated(names: names, defaults: settings)
        let appURL = link.appURL
        let title = link.title
        let ttl = link.ttlSeconds
        // Stored with each link, so that changing the deployment's defaults later leaves issued links alone.
        let android = link.androidStoreURL ?? settings.androidStoreURL
        let ios = link.iosStoreURL ?? settings.iosStoreURL
        // 80 random bits practically never collide, but a collision must not overwrite another's link.
        for _ in 0..<3 {
            let code = ShortLinkCode.generate()
            let sealedAppURL = try sealer.seal(appURL, context: Self.sealingContext(code))
            let rows = try await database.query(
                """
                INSERT INTO links.short_links (code, app_url_sealed, title, android_store_url, ios_store_url, expires_at)
                VALUES (\(code), \(sealedAppURL), \(title), \(android), \(ios), now() + \(ttl)::integer * interval '1 second')
                ON CONFLICT (code) DO NOTHING RETURNING code
                """, logger: logger)
            for try await stored in rows.decode(String.self) {
                return ShortLink(code: stored, url: settings.url(code: stored))
            }
        }
        throw RPCError(.conflict, reason: "code_collision", message: "Could not find a free short-link code; try again")
    }

    /// Nil when no link has this code (or the text cannot be a code at all).
    func find(_ text: String, logger: Logger) async throws -> (code: String, link: StoredShortLink)? {
        guard let code = ShortLinkCode.normalized(text) else { return nil }
        let rows = try await database.query(
            """
            SELECT app_url, app_url_sealed, title, android_store_url, ios_store_url, coalesce(expires_at <= now(), false)
            FROM links.short_links WHERE code = \(code)
            """, logger: logger)
        for try await (plain, sealed, title, android, ios, expired) in rows.decode((String?, Data?, String?, String, String, Bool).self) {
            let appURL = try sealed.map { try sealer.open($0, context: Self.sealingContext(code)) } ?? plain ?? ""
            return (code, StoredShortLink(appURL: appURL, title: title, androidStoreURL: android, iosStoreURL: ios, expired: expired))
        }
        return nil
    }

    /// Deletes the link, sealed app URL and all; a code that cannot be one, or is gone already, deletes nothing.
    func revoke(_ input: ShortLinkRevocation, context: CallContext) async throws -> ErasureReceipt {
        var deleted = 0
        if let code = ShortLinkCode.normalized(input.code) {
            let rows = try await database.query("DELETE FROM links.short_links WHERE code = \(code) RETURNING 1", logger: context.logger)
            for try await _ in rows.decode(Int.self) { deleted += 1 }
        }
        return ErasureReceipt(target: "short_link", id: input.code, deleted: ["short_links": deleted], context: context)
    }

    /// `GET /l/{code}`: a phone is sent into the app; any other client gets a page. Unknown and expired codes
    /// get pages too, since a person, not a program, follows these links.
    func resolve(_ input: ShortLinkVisit, logger: Logger) async throws -> RawHTTPReply {
        guard let found = try await find(input.code, logger: logger) else { return ShortLinkPages.notFound() }
        guard !found.link.expired else { return ShortLinkPages.expired() }
        if UserAgent.isMobile(input.userAgent) { return ShortLinkPages.redirect(to: found.link.appURL) }
        return ShortLinkPages.landing(found.link, code: found.code, shortURL: settings.url(code: found.code))
    }
}
