import CustodianRuntime

enum LinksMigrations {
    static let all: [Migration] = [
        Migration(
            1, "self-hosted short links",
            [
                """
                CREATE TABLE links.short_links (
                    code text PRIMARY KEY CHECK (code ~ '^[0-9a-z]{10,64}$'),
                    app_url text NOT NULL CHECK (length(app_url) BETWEEN 1 AND 2048),
                    title text CHECK (length(title) <= 200),
                    android_store_url text NOT NULL CHECK (length(android_store_url) <= 2048),
                    ios_store_url text NOT NULL CHECK (length(ios_store_url) <= 2048),
                    created_at timestamptz NOT NULL DEFAULT now(),
                    expires_at timestamptz)
                """,
                // For a clean-up job that drops expired links.
                "CREATE INDEX short_links_expires_at ON links.short_links (expires_at) WHERE expires_at IS NOT NULL",
            ]),
        // An app URL may carry a secret (a Twomes account's activation link does): new links keep it sealed with the
        // deployment's key, bound to the code; links made before keep theirs in `app_url` until they expire.
        Migration(
            2, "sealed short-link app URLs",
            [
                "ALTER TABLE links.short_links ADD COLUMN app_url_sealed bytea",
                "ALTER TABLE links.short_links ALTER COLUMN app_url DROP NOT NULL",
                "ALTER TABLE links.short_links ADD CONSTRAINT short_links_one_app_url CHECK ((app_url IS NULL) <> (app_url_sealed IS NULL))",
            ]),
        Migration(3, "retention totals", [Retention.totalsTable(schema: "links")]),
        // The list (docs/admin.md, "GET /admin/v1/links"): newest first a page at a time, and `q`, the start of a code or
        // of a title in any case, which `starts_with` finds as a range of an index in byte order whatever the collation.
        Migration(
            4, "short link list indexes",
            [
                "CREATE INDEX short_links_by_creation ON links.short_links (created_at, sha256(code::bytea))",
                #"CREATE INDEX short_links_by_code_prefix ON links.short_links ((code COLLATE "C"))"#,
                #"CREATE INDEX short_links_by_title_prefix ON links.short_links ((lower(title) COLLATE "C"))"#,
            ]),
    ]
}
