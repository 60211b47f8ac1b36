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
    ]
}
