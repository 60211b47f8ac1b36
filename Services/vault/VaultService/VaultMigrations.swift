import CustodianRuntime

enum VaultMigrations {
    static let all: [Migration] = [
        Migration(
            1, "user keys, modules, repos, permissions and items",
            [
                // Each user's X25519 key pair; the secret key is sealed with a key derived from the password.
                """
                CREATE TABLE vault.user_keys (
                    user_id bigint PRIMARY KEY,
                    public_key bytea NOT NULL,
                    secret_sealed bytea NOT NULL,
                    salt bytea NOT NULL,
                    updated_at timestamptz NOT NULL DEFAULT now())
                """,
                """
                CREATE TABLE vault.modules (
                    id bigserial PRIMARY KEY,
                    user_id bigint NOT NULL,
                    name text NOT NULL,
                    description text NOT NULL,
                    url text NOT NULL,
                    picture text,
                    uid text NOT NULL UNIQUE,
                    secret_hash bytea NOT NULL,
                    secret_sealed bytea NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now())
                """,
                // A repo's secret key is sealed to its owner's public key, so only the owner's password opens it.
                """
                CREATE TABLE vault.repos (
                    id bigserial PRIMARY KEY,
                    user_id bigint NOT NULL,
                    identifier text NOT NULL,
                    public_key bytea NOT NULL,
                    secret_sealed bytea NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    UNIQUE (user_id, identifier))
                """,
                """
                CREATE TABLE vault.permissions (
                    module_id bigint NOT NULL REFERENCES vault.modules (id) ON DELETE CASCADE,
                    repo_id bigint NOT NULL REFERENCES vault.repos (id) ON DELETE CASCADE,
                    can_read boolean NOT NULL,
                    can_write boolean NOT NULL,
                    PRIMARY KEY (module_id, repo_id))
                """,
                // An encrypted record's nonce is unique in its repo: a retried upload finds the first copy.
                """
                CREATE TABLE vault.items (
                    id bigserial PRIMARY KEY,
                    repo_id bigint NOT NULL REFERENCES vault.repos (id) ON DELETE CASCADE,
                    value jsonb NOT NULL,
                    nonce text,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    UNIQUE (repo_id, nonce))
                """,
                "CREATE INDEX items_by_repo ON vault.items (repo_id, id)",
            ]),
        Migration(2, "retention totals", [Retention.totalsTable(schema: "vault")]),
        // Synthetic data (docs/operations.md): the vault's side of a synthetic user (auth holds the account), so that
        // the operators' user list can leave it out.
        Migration(
            20, "synthetic users",
            [
                "ALTER TABLE vault.user_keys ADD COLUMN synthetic boolean NOT NULL DEFAULT false"
            ]),
    ]
}
