import CustodianRuntime

enum AuthMigrations {
    static let all: [Migration] = [
        Migration(1, "admin tokens and signing keys", [
            """
            CREATE TABLE auth.admin_tokens (
                id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
                token_hash bytea NOT NULL UNIQUE,
                label text NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                revoked_at timestamptz)
            """,
            """
            CREATE TABLE auth.signing_keys (
                kid text PRIMARY KEY,
                private_key_pem text NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                retired_at timestamptz)
            """,
        ]),
        Migration(2, "data vault users and login throttling", [
            """
            CREATE TABLE auth.vault_users (
                id bigserial PRIMARY KEY,
                email text NOT NULL UNIQUE,
                name text NOT NULL,
                password_hash text NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now())
            """,
            // Failed logins per email in a window; a lock that ends by itself.
            """
            CREATE TABLE auth.login_failures (
                email text PRIMARY KEY,
                failures integer NOT NULL,
                window_started timestamptz NOT NULL,
                locked_until timestamptz)
            """,
        ]),
    ]
}
