import CustodianRuntime

enum DevicesMigrations {
    static let all: [Migration] = [
        Migration(
            1, "twomes accounts and buildings",
            [
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
        Migration(
            2, "twomes device types, devices and measurements",
            [
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
        Migration(
            3, "opensense devices, uploads, batches and configs",
            [
                """
                CREATE TABLE devices.opensense_devices (
                    id bigserial PRIMARY KEY,
                    device_id text NOT NULL UNIQUE,
                    key_sealed bytea NOT NULL,
                    registered_at timestamptz NOT NULL DEFAULT now())
                """,
                """
                CREATE TABLE devices.opensense_uploads (
                    id bigserial PRIMARY KEY,
                    device_ref bigint NOT NULL REFERENCES devices.opensense_devices (id) ON DELETE CASCADE,
                    file_hash text NOT NULL,
                    batch_count integer NOT NULL,
                    received_at timestamptz NOT NULL DEFAULT now(),
                    UNIQUE (device_ref, file_hash))
                """,
                // `datetime` as the app wrote it (local `yyyy-MM-dd HH:mm`), and read as UTC for time-range queries.
                """
                CREATE TABLE devices.opensense_batches (
                    id bigserial PRIMARY KEY,
                    upload_id bigint NOT NULL REFERENCES devices.opensense_uploads (id) ON DELETE CASCADE,
                    device_ref bigint NOT NULL REFERENCES devices.opensense_devices (id) ON DELETE CASCADE,
                    probe text NOT NULL,
                    datetime text NOT NULL,
                    recorded_at timestamptz,
                    payload jsonb NOT NULL)
                """,
                "CREATE INDEX opensense_batches_by_device ON devices.opensense_batches (device_ref, recorded_at, id)",
                """
                CREATE TABLE devices.opensense_configs (
                    version serial PRIMARY KEY,
                    document jsonb NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now())
                """,
                // The thesis' default configuration, which every app starts from (docs/opensense.md, "GET /config").
                """
                INSERT INTO devices.opensense_configs (document) VALUES ('{"name": "defaultconfig", "version": 1, "dataUploadOnWifiOnly": true, "baseUrl": "http://data.opensense.org", "configUpdatePeriod": 21600, "dataArchivePeriod": 300, "dataUploadPeriod": 7200, "maxDataFileSizeKb": 1024, "dataRequests": {"dk.dtu.imm.sensible.battery": [{"interval": -1}]}}')
                """,
            ]),
        // The label on a device carries its activation token (docs/admin.md, "Device labels"), so the token is kept sealed
        // with the deployment's key, besides its hash for look-ups.
        Migration(
            4, "sealed device activation tokens",
            [
                "ALTER TABLE devices.devices ADD COLUMN activation_token_sealed bytea"
            ]),
        // Measurements grow without bound in a long study: one partition a month (UTC), so an old month can be
        // detached and archived without touching the rest. Rows outside every monthly partition go to the default
        // one; `MeasurementPartitions` creates the months ahead, and moves such rows when their month gets its own.
        Migration(
            5, "measurements partitioned by month",
            [
                "ALTER TABLE devices.measurements RENAME TO measurements_unpartitioned",
                "ALTER INDEX devices.measurements_pkey RENAME TO measurements_unpartitioned_pkey",
                "ALTER INDEX devices.measurements_by_device_time RENAME TO measurements_unpartitioned_by_device_time",
                """
                CREATE TABLE devices.measurements (
                    device_id bigint NOT NULL REFERENCES devices.devices (id) ON DELETE CASCADE,
                    property_id integer NOT NULL REFERENCES devices.properties (id),
                    timestamp timestamptz NOT NULL,
                    value text NOT NULL,
                    upload_id bigint NOT NULL REFERENCES devices.uploads (id) ON DELETE CASCADE,
                    PRIMARY KEY (device_id, property_id, timestamp))
                PARTITION BY RANGE (timestamp)
                """,
                "CREATE INDEX measurements_by_device_time ON devices.measurements (device_id, timestamp DESC)",
                "CREATE TABLE devices.measurements_default PARTITION OF devices.measurements DEFAULT",
                MeasurementPartitions.createFunction,
                """
                SELECT devices.create_measurement_partition(month)
                FROM (SELECT DISTINCT date_trunc('month', timestamp AT TIME ZONE 'UTC')::date AS month
                      FROM devices.measurements_unpartitioned) AS months
                """,
                "INSERT INTO devices.measurements SELECT * FROM devices.measurements_unpartitioned",
                "DROP TABLE devices.measurements_unpartitioned",
            ]),
        // When a device's label was last put on a sheet, so that a researcher can print the ones not printed yet.
        Migration(
            6, "device label printing",
            [
                "ALTER TABLE devices.devices ADD COLUMN label_printed_on timestamptz"
            ]),
        // Erasure and detaching (docs/erasure.md). A reading belongs to the account its device was attached to when it
        // came, not to the device's account of today: a detached device's readings stay with the account they were
        // taken for, and an account's erasure finds them all. An account remembers its short link, to revoke it.
        // Measurements no longer reference their upload by a foreign key: deleting uploads would scan every
        // partition once per upload for rows that point at it (the column has no index, and one would cost each
        // reading a write); erasure and retention delete both explicitly.
        Migration(
            7, "readings attributed to accounts, account short links",
            [
                "ALTER TABLE devices.accounts ADD COLUMN link_code text",
                "ALTER TABLE devices.uploads ADD COLUMN building_id bigint",
                "ALTER TABLE devices.measurements ADD COLUMN building_id bigint",
                "UPDATE devices.uploads u SET building_id = d.building_id FROM devices.devices d WHERE d.id = u.device_id",
                "UPDATE devices.measurements m SET building_id = d.building_id FROM devices.devices d WHERE d.id = m.device_id",
                "CREATE INDEX uploads_by_building ON devices.uploads (building_id) WHERE building_id IS NOT NULL",
                """
                DO $$ DECLARE name text; BEGIN
                    FOR name IN SELECT conname FROM pg_constraint
                                WHERE conrelid = 'devices.measurements'::regclass AND confrelid = 'devices.uploads'::regclass LOOP
                        EXECUTE format('ALTER TABLE devices.measurements DROP CONSTRAINT %I', name);
                    END LOOP;
                END $$
                """,
            ]),
        Migration(8, "retention totals", [Retention.totalsTable(schema: "devices")]),
        // Synthetic data (docs/operations.md): what loadgen and bench create is marked when it is made, so that
        // researchers' lists and exports leave it out and one command can erase it. Readings and batches belong to a
        // synthetic account or device by its row.
        Migration(
            20, "synthetic accounts and devices",
            [
                "ALTER TABLE devices.accounts ADD COLUMN synthetic boolean NOT NULL DEFAULT false",
                "ALTER TABLE devices.devices ADD COLUMN synthetic boolean NOT NULL DEFAULT false",
                "ALTER TABLE devices.opensense_devices ADD COLUMN synthetic boolean NOT NULL DEFAULT false",
            ]),
        // The researchers' study pages (docs/admin.md, "Researcher routes"). A device remembers when it was last
        // detached, so that "detached" and "never attached" differ (detaching clears its activation); devices detached
        // before this have uploads and no account, and get their last upload's time. A device's attachments are its
        // uploads grouped by the account they were made for: this index answers that, and "which devices uploaded for
        // this account", from the index alone (one probe per device), where uploads_by_building would read every
        // upload's row; it costs an upload (one an hour per device) one more index entry.
        Migration(
            21, "device detaching time, uploads by device and account",
            [
                "ALTER TABLE devices.devices ADD COLUMN detached_on timestamptz",
                """
                UPDATE devices.devices d SET detached_on = (SELECT max(u.server_time) FROM devices.uploads u WHERE u.device_id = d.id)
                WHERE d.building_id IS NULL AND EXISTS (SELECT 1 FROM devices.uploads u WHERE u.device_id = d.id)
                """,
                "CREATE INDEX uploads_by_device_building ON devices.uploads (device_id, building_id, server_time)",
            ]),
        // The researchers' OpenSense list (docs/admin.md): pages in registration order, and `q`, the start of a device id,
        // which `starts_with` finds as a range of an index in byte order whatever the database's collation.
        Migration(
            30, "opensense device list indexes",
            [
                "CREATE INDEX opensense_devices_by_registration ON devices.opensense_devices (registered_at, id)",
                #"CREATE INDEX opensense_devices_by_id_prefix ON devices.opensense_devices ((device_id COLLATE "C"))"#,
            ]),
    ]
}
