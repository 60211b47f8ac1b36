import CustodianRuntime

enum LinksMigrations {
    static let all: [Migration] = [
        Migration(1, "self-hosted short links", [
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
    ]
}
