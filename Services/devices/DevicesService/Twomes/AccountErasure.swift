import CustodianContracts
import CustodianRPC
import CustodianRuntime
import Logging
import PostgresNIO

/// A Twomes participant's erasure and a device's detaching (docs/erasure.md). Both revoke the device session tokens
/// they touch in the same statement that unlinks the device, which waits for an upload under way (its row lock,
/// `Measurements.StoreUpload`): an upload racing them is stored first and then erased, or refused.
struct AccountErasure: Sendable {
    let database: Database
    let services: RPCClient

    /// The account, its location, every reading and upload taken for it, and its short link; its devices are detached
    /// (session tokens revoked) so that the hardware can be deployed again with its label's activation token.
    func erase(_ request: AccountByPseudonym, context: CallContext) async throws -> ErasureReceipt {
        let pseudonym = request.pseudonym
        let logger = context.logger
        // The short link first: with links down nothing is deleted yet, and a retry of the whole erasure is safe.
        var shortLinks = 0
        let codes = try await database.query(
            "SELECT link_code FROM devices.accounts WHERE pseudonym = \(pseudonym) AND link_code IS NOT NULL", logger: logger)
        for try await code in codes.decode(String.self) {
            let receipt = try await services.call(LinksMethods.shortRevoke, input: ShortLinkRevocation(code: code), context: context)
            shortLinks += receipt.deleted["short_links"] ?? 0
        }
        var deleted = try await database.withTransaction(logger: logger) { connection -> [String: Int] in
            var counts = ["accounts": 0, "locations": 0, "devices_detached": 0, "uploads": 0, "measurements": 0]
            var found: (account: Int64, building: Int64?)?
            for try await row in try await connection.query(
                """
                SELECT a.id, b.id FROM devices.accounts a LEFT JOIN devices.buildings b ON b.account_id = a.id
                WHERE a.pseudonym = \(pseudonym) FOR UPDATE OF a
                """, logger: logger
            ).decode((Int64, Int64?).self) { found = row }
            guard let found else { return counts }
            if let building = found.building {
                counts["devices_detached"] = try await connection.count(Self.detach("building_id = \(building)"), logger: logger)
                // By device first, so that each device's index range is read rather than every partition.
                counts["measurements"] = try await connection.count(
                    """
                    DELETE FROM devices.measurements WHERE building_id = \(building)
                      AND device_id IN (SELECT DISTINCT device_id FROM devices.uploads WHERE building_id = \(building))
                    """, logger: logger)
                counts["uploads"] = try await connection.count("DELETE FROM devices.uploads WHERE building_id = \(building)", logger: logger)
                counts["locations"] = try await connection.count("DELETE FROM devices.buildings WHERE id = \(building)", logger: logger)
            }
            counts["accounts"] = try await connection.count("DELETE FROM devices.accounts WHERE id = \(found.account)", logger: logger)
            return counts
        }
        deleted["short_links"] = shortLinks
        let receipt = ErasureReceipt(target: "twomes_account", id: String(pseudonym), deleted: deleted, context: context)
        logger.notice(
            "Twomes account erased",
            metadata: [
                "pseudonym": .stringConvertible(pseudonym), "admin": .string(context.principal?.id ?? "-"),
                "measurements": .stringConvertible(deleted["measurements"] ?? 0),
            ])
        return receipt
    }

    /// The seed's "the link between device and account can be undone, for re-deploying the device to another
    /// account": the device keeps its activation token, loses its session token, and its readings stay with the
    /// account they were taken for.
    func detach(_ request: DeviceByName, context: CallContext) async throws -> DeviceDetachment {
        let name = request.name
        let logger = context.logger
        return try await database.withTransaction(logger: logger) { connection in
            var found: (device: Int64, building: Int64?, pseudonym: Int?)?
            for try await row in try await connection.query(
                """
                SELECT d.id, d.building_id, a.pseudonym FROM devices.devices d
                LEFT JOIN devices.buildings b ON b.id = d.building_id LEFT JOIN devices.accounts a ON a.id = b.account_id
                WHERE d.name = \(name) FOR UPDATE OF d
                """, logger: logger
            ).decode((Int64, Int64?, Int?).self) { found = row }
            guard let found else { throw RPCError.notFound("Device \(name) not found", reason: "device_not_found") }
            guard let building = found.building else {
                return DeviceDetachment(device: name, detached_from: nil, measurements_kept: 0)
            }
            _ = try await connection.count(Self.detach("id = \(found.device)"), logger: logger)
            let kept = try await connection.count(
                "SELECT 1 FROM devices.measurements WHERE device_id = \(found.device) AND building_id = \(building)", logger: logger)
            return DeviceDetachment(device: name, detached_from: found.pseudonym, measurements_kept: kept)
        }
    }

    /// A device's erasure (`DELETE /admin/v1/devices/{device_name}`): the device with its tokens, every reading it took
    /// and its uploads, whichever account they were taken for. For hardware that leaves the study, and for the synthetic
    /// devices loadgen made, which an account's erasure only detaches. The row lock waits for an upload under way.
    func eraseDevice(_ request: DeviceByName, context: CallContext) async throws -> ErasureReceipt {
        let name = request.name
        let logger = context.logger
        let deleted = try await database.withTransaction(logger: logger) { connection -> [String: Int] in
            var counts = ["devices": 0, "uploads": 0, "measurements": 0]
            var found: Int64?
            for try await id in try await connection.query(
                "SELECT id FROM devices.devices WHERE name = \(name) FOR UPDATE", logger: logger
            ).decode(Int64.self) { found = id }
            guard let device = found else { return counts }
            counts["measurements"] = try await connection.count("DELETE FROM devices.measurements WHERE device_id = \(device)", logger: logger)
            counts["uploads"] = try await connection.count("DELETE FROM devices.uploads WHERE device_id = \(device)", logger: logger)
            counts["devices"] = try await connection.count("DELETE FROM devices.devices WHERE id = \(device)", logger: logger)
            return counts
        }
        logger.notice(
            "Twomes device erased",
            metadata: [
                "device": .string(name), "admin": .string(context.principal?.id ?? "-"),
                "measurements": .stringConvertible(deleted["measurements"] ?? 0),
            ])
        return ErasureReceipt(target: "twomes_device", id: name, deleted: deleted, context: context)
    }

    /// Unlinks the devices `condition` picks (an interpolated `WHERE`) and revokes their session tokens.
    private static func detach(_ condition: PostgresQuery) -> PostgresQuery {
        var query: PostgresQuery = """
            UPDATE devices.devices SET building_id = NULL, session_token_hash = NULL, activated_on = NULL,
                detached_on = CASE WHEN building_id IS NULL THEN detached_on ELSE now() END WHERE
            """
        query.sql += " " + condition.sql
        query.binds = condition.binds
        return query
    }
}
