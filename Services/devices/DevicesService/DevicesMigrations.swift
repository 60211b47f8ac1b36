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
        Migration(2, "twomes device types, devices and measurements", [
            """
            CREATE TABLE devices.device_types (
                id serial PRIMARY KEY,
                name text NOT NULL UNIQUE,
                display_name text NOT NULL,
                installation_manual_url text NOT NULL,
                created_on timestamptz NOT NULL DEFAULT now())
            """,
            """
            CREATE TABLE devices.properties (
                id serial PRIMARY KEY,
                device_type_id integer NOT NULL REFERENCES devices.device_types (id) ON DELETE CASCADE,
                name text NOT NULL,
                unit text,
                UNIQUE (device_type_id, name))
            """,
            """
            CREATE TABLE devices.devices (
                id bigserial PRIMARY KEY,
                name text NOT NULL UNIQUE,
                device_type_id integer NOT NULL REFERENCES devices.device_types (id),
                activation_token_hash bytea NOT NULL UNIQUE,
                building_id bigint REFERENCES devices.buildings (id) ON DELETE SET NULL,
                session_token_hash bytea UNIQUE,
                created_on timestamptz NOT NULL DEFAULT now(),
                activated_on timestamptz)
            """,
            // One row per distinct upload: a retry (same device, same body) finds it and stores nothing again.
            """
            CREATE TABLE devices.uploads (
                id bigserial PRIMARY KEY,
                device_id bigint NOT NULL REFERENCES devices.devices (id) ON DELETE CASCADE,
                body_sha256 bytea NOT NULL,
                server_time timestamptz NOT NULL,
                device_time timestamptz NOT NULL,
                size integer NOT NULL,
                UNIQUE (device_id, body_sha256))
            """,
            """
            CREATE TABLE devices.measurements (
                device_id bigint NOT NULL REFERENCES devices.devices (id) ON DELETE CASCADE,
                property_id integer NOT NULL REFERENCES devices.properties (id),
                timestamp timestamptz NOT NULL,
                value text NOT NULL,
                upload_id bigint NOT NULL REFERENCES devices.uploads (id) ON DELETE CASCADE,
                PRIMARY KEY (device_id, property_id, timestamp))
            """,
            "CREATE INDEX measurements_by_device_time ON devices.measurements (device_id, timestamp DESC)",
        ] + DefaultDeviceTypes.seedStatements),
    ]
}
