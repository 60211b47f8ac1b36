import CustodianContracts
import CustodianJSON
import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import PostgresNIO

/// The OpenSense framework's backend (docs/opensense.md): device registration with a server-generated storage
/// key, the remote configuration, and integrity-checked uploads of probe batches.
struct OpenSense: Sendable {
    let database: Database
    let sealer: Sealer

    /// POST /register: a new device gets its key once; the server keeps it sealed for researchers only.
    func register(_ registration: OpenSenseRegistration, context: CallContext) async throws -> OpenSenseKey {
        let deviceID = registration.deviceID
        let key = OpenSenseKeys.generate()
        let sealed = try sealer.seal(key, context: Self.sealingContext(deviceID))
        let rows = try await database.query(
            """
            INSERT INTO devices.opensense_devices (device_id, key_sealed, synthetic) VALUES (\(deviceID), \(sealed), \(context.createsSynthetic))
            ON CONFLICT (device_id) DO NOTHING RETURNING id
            """, logger: context.logger)
        for try await _ in rows.decode(Int64.self) { return OpenSenseKey(key: key) }
        // The thesis: the key cannot be retrieved again from the server.
        throw RPCError(.conflict, reason: "device_already_registered", message: "Device already registered")
    }

    static let sealed = SealedColumn(table: "devices.opensense_devices", column: "key_sealed", key: "device_id", contextPrefix: "opensense-key:")

    static func sealingContext(_ deviceID: String) -> String { sealed.context(deviceID) }

    /// GET /config: the current configuration document (each was checked when it was published).
    func config(context: CallContext) async throws -> OpenSenseConfiguration {
        let rows = try await database.query(
            "SELECT document::text FROM devices.opensense_configs ORDER BY version DESC LIMIT 1", logger: context.logger)
        for try await text in rows.decode(String.self) {
            return try JSONValueDecoder().decode(OpenSenseConfiguration.self, from: JSONValue.parse(Array(text.utf8), maximumDepth: 64))
        }
        throw RPCError.internal("no OpenSense configuration is stored")
    }

    /// POST /upload: the upload as its input checked it (parameters in the thesis' order, the MD5 of `data`), each
    /// batch stored. A retry of the same upload (same device, same hash) answers ok and stores nothing again.
    func upload(_ upload: OpenSenseUpload, context: CallContext) async throws -> OpenSenseUploadStatus {
        let deviceID = upload.deviceID, fileHash = upload.fileHash, batches = upload.batches
        let logger = context.logger
        try await database.withTransaction(logger: logger) { connection in
            var deviceRef: Int64?
            for try await id in try await connection.query(
                // Locked, so that an erasure of the device waits for this upload and deletes it too, or goes first and
                // this upload finds no device (docs/erasure.md).
                "SELECT id FROM devices.opensense_devices WHERE device_id = \(deviceID) FOR KEY SHARE", logger: logger
            ).decode(Int64.self) { deviceRef = id }
            guard let deviceRef else {
                throw RPCError.badRequest("Unknown device_id: register the device first", reason: "device_not_registered")
            }
            var uploadID: Int64?
            for try await id in try await connection.query(
                """
                INSERT INTO devices.opensense_uploads (device_ref, file_hash, batch_count)
                VALUES (\(deviceRef), \(fileHash), \(batches.count))
                ON CONFLICT (device_ref, file_hash) DO NOTHING RETURNING id
                """, logger: logger
            ).decode(Int64.self) { uploadID = id }
            guard let uploadID, !batches.isEmpty else { return }  // a retry, or nothing to store
            try await connection.query(
                """
                INSERT INTO devices.opensense_batches (upload_id, device_ref, probe, datetime, recorded_at, payload)
                SELECT \(uploadID), \(deviceRef), p, d, NULLIF(r, '')::timestamptz, j::jsonb
                FROM unnest(\(batches.map(\.probe))::text[], \(batches.map(\.datetime))::text[],
                            \(batches.map(Self.recordedAtText))::text[], \(batches.map(\.json))::text[]) AS b(p, d, r, j)
                """, logger: logger)
        }
        return OpenSenseUploadStatus(status: "ok")
    }

    /// Arrays of optional values cannot be bound, so a missing time travels as "".
    static func recordedAtText(_ batch: OpenSenseUpload.Batch) -> String {
        batch.recordedAt.map { Date.ISO8601FormatStyle().format($0) } ?? ""
    }
}
