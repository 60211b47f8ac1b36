import CustodianRuntime

enum DevicesMigrations {
    static let all: [Migration] = [
        Migration(1, "twomes accounts and buildings", [
            """
            CREATE TABLE devices.accounts (
                id bigserial PRIMARY KEY,
                pseudonym integer NOT NULL UNIQUE CHECK (pseudonym BETWEEN 800000 AND 899999),
                activation_token_hash bytea UNIQUE,
                activation_expires_at timestamptz,
                activated_on timestamptz,
                session_token_hash bytea UNIQUE,
                created_on timestamptz NOT NULL DEFAULT now())
            """,
            """
            CREATE TABLE devices.buildings (
                id bigserial PRIMARY KEY,
                account_id bigint NOT NULL UNIQUE REFERENCES devices.accounts (id) ON DELETE CASCADE,
                latitude numeric(8, 5) NOT NULL,
                longitude numeric(8, 5) NOT NULL,
                tz_name text NOT NULL)
            """,
        ]),
    ]
}
