import CustodianContracts
import CustodianJSON
import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import Foundation
import PostgresNIO

/// What researchers do with OpenSense besides looking (``OpenSenseDirectory``): recover a device's storage key to
/// decrypt data taken from a phone, erase a device, and publish a new configuration.
struct OpenSenseAdmin: Sendable {
    let database: Database
    let sealer: Sealer

    func key(_ device: OpenSenseDeviceByID, context: CallContext) async throws -> RecoveredOpenSenseKey {
        let deviceID = device.deviceID
        let rows = try await database.query(
            "SELECT key_sealed FROM devices.opensense_devices WHERE device_id = \(deviceID)", logger: context.logger)
        for try await sealed in rows.decode(Data.self) {
            context.logger.notice(
                "OpenSense key recovered", metadata: ["device_id": .string(deviceID), "admin": .string(context.principal?.id ?? "-")])
            return RecoveredOpenSenseKey(device_id: deviceID, key: try sealer.open(sealed, context: OpenSense.sealingContext(deviceID)))
        }
        throw RPCError.notFound("No OpenSense device \(deviceID)", reason: "device_not_found")
    }

    /// A device's erasure (docs/erasure.md): its registration and escrowed key, uploads and batches. An upload under
    /// way finishes first and goes too (its device lookup locks the row), or comes after and finds no device.
    func erase(_ device: OpenSenseDeviceByID, context: CallContext) async throws -> ErasureReceipt {
        let deviceID = device.deviceID
        let logger = context.logger
        let deleted = try await database.withTransaction(logger: logger) { connection -> [String: Int] in
            var counts = ["devices": 0, "uploads": 0, "batches": 0]
            var ref: Int64?
            for try await id in try await connection.query(
                "SELECT id FROM devices.opensense_devices WHERE device_id = \(deviceID) FOR UPDATE", logger: logger
            ).decode(Int64.self) { ref = id }
            guard let ref else { return counts }
            counts["batches"] = try await connection.count("DELETE FROM devices.opensense_batches WHERE device_ref = \(ref)", logger: logger)
            counts["uploads"] = try await connection.count("DELETE FROM devices.opensense_uploads WHERE device_ref = \(ref)", logger: logger)
            counts["devices"] = try await connection.count("DELETE FROM devices.opensense_devices WHERE id = \(ref)", logger: logger)
            return counts
        }
        logger.notice(
            "OpenSense device erased",
            metadata: [
                "device_id": .string(deviceID), "admin": .string(context.principal?.id ?? "-"),
                "batches": .stringConvertible(deleted["batches"] ?? 0),
            ])
        return ErasureReceipt(target: "opensense_device", id: deviceID, deleted: deleted, context: context)
    }

    /// Publishes a new configuration; its `version` is the next number, whatever the document said.
    func replaceConfig(_ configuration: OpenSenseConfiguration, context: CallContext) async throws -> OpenSenseConfiguration {
        var document = configuration
        let logger = context.logger
        return try await database.withTransaction(logger: logger) { connection in
            try await connection.query("LOCK TABLE devices.opensense_configs IN EXCLUSIVE MODE", logger: logger)
            var next = 1
            for try await version in try await connection.query(
                "SELECT coalesce(max(version), 0) + 1 FROM devices.opensense_configs", logger: logger
            ).decode(Int.self) { next = version }
            document.version = next
            let text = String(decoding: try JSONValueEncoder().encode(document).jsonBytes, as: UTF8.self)
            try await connection.query(
                "INSERT INTO devices.opensense_configs (version, document) VALUES (\(next), \(text)::jsonb)", logger: logger)
            return document
        }
    }
}
