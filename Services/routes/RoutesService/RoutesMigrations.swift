import CustodianRuntime

enum RoutesMigrations {
    static let all: [Migration] = [
        Migration(
            1, "api consumers, seen signatures and routes",
            [
                // The gateway checks HMACs with the secret, so it is kept sealed with the deployment key; its
                // hash shows that what the key opened is the secret that was handed out.
                """
                CREATE TABLE routes.consumers (
                    id bigserial PRIMARY KEY,
                    consumer_key text NOT NULL UNIQUE,
                    name text NOT NULL,
                    secret_sealed bytea NOT NULL,
                    secret_sha256 bytea NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now())
                """,
                // Every accepted signature until its timestamp leaves the window, so that a replay is refused by
                // whichever replica it reaches.
                """
                CREATE TABLE routes.seen_signatures (
                    signature bytea PRIMARY KEY,
                    expires_at timestamptz NOT NULL)
                """,
                "CREATE INDEX seen_signatures_by_expiry ON routes.seen_signatures (expires_at)",
                // One row per distinct upload of a consumer: a retry of the same blob finds it.
                """
                CREATE TABLE routes.routes (
                    id bigserial PRIMARY KEY,
                    route_id text NOT NULL UNIQUE,
                    consumer_id bigint NOT NULL REFERENCES routes.consumers (id),
                    blob bytea NOT NULL,
                    blob_sha256 bytea NOT NULL,
                    lookup_id text UNIQUE,
                    created_at timestamptz NOT NULL DEFAULT date_trunc('second', now()),
                    UNIQUE (consumer_id, blob_sha256))
                """,
            ]),
        // A revoked consumer's signed requests are refused (docs/erasure.md); its sealed secret is wiped at revocation.
        Migration(
            2, "revocable api consumers",
            [
                "ALTER TABLE routes.consumers ADD COLUMN revoked_at timestamptz"
            ]),
        // Synthetic data (docs/operations.md): API consumers that loadgen creates.
        Migration(
            20, "synthetic api consumers",
            [
                "ALTER TABLE routes.consumers ADD COLUMN synthetic boolean NOT NULL DEFAULT false"
            ]),
    ]
}
