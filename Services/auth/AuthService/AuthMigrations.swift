import CustodianRuntime

enum AuthMigrations {
    static let all: [Migration] = [
        Migration(
            1, "admin tokens and signing keys",
            [
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
        Migration(
            2, "data vault users and login throttling",
            [
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
        Migration(
            3, "tracing-app instances, sessions and payload IVs",
            [
                // The app instance id is kept only as its SHA-256; `device_id` is the opaque id tokens and other
                // services use. Failures count towards a lockout that ends by itself.
                """
                CREATE TABLE auth.lemon_apps (
                    id bigserial PRIMARY KEY,
                    device_id uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
                    app_id_hash bytea NOT NULL UNIQUE,
                    public_key bytea NOT NULL,
                    operating_system text NOT NULL,
                    language text NOT NULL,
                    push_token text CONSTRAINT lemon_apps_push_token_key UNIQUE,
                    deactivated_at timestamptz,
                    failures integer NOT NULL DEFAULT 0,
                    locked_until timestamptz,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    last_authenticated_at timestamptz)
                """,
                """
                CREATE TABLE auth.lemon_sessions (
                    id uuid PRIMARY KEY,
                    app_id bigint NOT NULL REFERENCES auth.lemon_apps (id) ON DELETE CASCADE,
                    keys_sealed bytea NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    expires_at timestamptz NOT NULL,
                    revoked_at timestamptz)
                """,
                "CREATE INDEX lemon_sessions_app ON auth.lemon_sessions (app_id)",
                "CREATE INDEX lemon_sessions_expiry ON auth.lemon_sessions (expires_at)",
                """
                CREATE TABLE auth.lemon_payload_ivs (
                    session_id uuid NOT NULL REFERENCES auth.lemon_sessions (id) ON DELETE CASCADE,
                    iv bytea NOT NULL,
                    PRIMARY KEY (session_id, iv))
                """,
            ]),
        // Signing keys are kept sealed with the deployment key; `SigningKeys` seals the plaintext ones it finds.
        Migration(
            4, "sealed signing keys",
            [
                "ALTER TABLE auth.signing_keys ADD COLUMN private_key_sealed bytea",
                "ALTER TABLE auth.signing_keys ALTER COLUMN private_key_pem DROP NOT NULL",
                "ALTER TABLE auth.signing_keys ADD CONSTRAINT signing_key_present CHECK (private_key_sealed IS NOT NULL OR private_key_pem IS NOT NULL)",
            ]),
        // The researcher console's sessions, by the hash of the cookie's token; revoking the admin token ends them.
        Migration(
            5, "console sessions",
            [
                """
                CREATE TABLE auth.console_sessions (
                    token_hash bytea PRIMARY KEY,
                    admin_token_id uuid NOT NULL REFERENCES auth.admin_tokens (id) ON DELETE CASCADE,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    expires_at timestamptz NOT NULL,
                    revoked_at timestamptz)
                """,
                "CREATE INDEX console_sessions_expiry ON auth.console_sessions (expires_at)",
            ]),
        // Admin identities: a scope, who made each, an optional expiry, when it was last used. Tokens made before
        // scopes existed were all-powerful, and stay so as owners.
        Migration(
            6, "admin identities with scopes and expiry",
            [
                """
                ALTER TABLE auth.admin_tokens
                    ADD COLUMN scope text NOT NULL DEFAULT 'owner' CONSTRAINT admin_token_scope CHECK (scope IN ('researcher', 'operator', 'owner')),
                    ADD COLUMN created_by text,
                    ADD COLUMN expires_at timestamptz,
                    ADD COLUMN last_used_at timestamptz
                """,
                // New identities name their scope: no default that could hand out owner by accident.
                "ALTER TABLE auth.admin_tokens ALTER COLUMN scope DROP DEFAULT",
            ]),
        // Failed logins by a keyed digest of the email rather than the email (PasswordThrottle): a guess at any address
        // left it in the database for a day. The counts start afresh; a lock lasts a quarter of an hour anyway.
        Migration(
            7, "login throttling by email digest",
            [
                "DROP TABLE auth.login_failures",
                """
                CREATE TABLE auth.login_failures (
                    email_digest bytea PRIMARY KEY,
                    failures integer NOT NULL,
                    window_started timestamptz NOT NULL,
                    locked_until timestamptz)
                """,
            ]),
        // Synthetic data (docs/operations.md): vault users and app instances that loadgen and bench create.
        Migration(
            20, "synthetic vault users and app instances",
            [
                "ALTER TABLE auth.vault_users ADD COLUMN synthetic boolean NOT NULL DEFAULT false",
                "ALTER TABLE auth.lemon_apps ADD COLUMN synthetic boolean NOT NULL DEFAULT false",
            ]),
        // Signing-key rotation (docs/jwt.md): a key is published before it signs, from `activates_at`. Keys made before
        // signed from when they were made.
        Migration(
            30, "signing keys that sign from a set time",
            [
                "ALTER TABLE auth.signing_keys ADD COLUMN activates_at timestamptz",
                "UPDATE auth.signing_keys SET activates_at = created_at",
                "ALTER TABLE auth.signing_keys ALTER COLUMN activates_at SET NOT NULL, ALTER COLUMN activates_at SET DEFAULT now()",
            ]),
    ]
}
