import CustodianContracts
import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import PostgresNIO

/// Twomes devices from preparation to activation: phases B, D and E, whose steps (B3, D2, …) docs/twomes.md lists
/// under "Provisioning steps".
struct TwomesDevices: Sendable {
    let database: Database
    let sessions: Sessions
    let sealer: Sealer

    static let sealed = SealedColumn(
        table: "devices.devices", column: "activation_token_sealed", key: "name", contextPrefix: "twomes-device-activation:")

    static func sealingContext(_ name: String) -> String { sealed.context(name) }

    private static let deviceColumns = """
        d.id, d.name, t.name, t.display_name, t.installation_manual_url, d.created_on, d.activated_on
        """

    /// B3: a researcher registers a prepared device; it starts unattached.
    func create(_ request: CreateDeviceRequest, context: CallContext) async throws -> DeviceItem {
        let logger = context.logger
        // A token the server chooses: 128 bits from the system CSPRNG (22 characters, short enough for a QR label).
        let generated: String? = request.activationToken == nil ? SecretToken.generate(byteCount: 16) : nil
        guard let activationToken = request.activationToken ?? generated else { throw RPCError.internal() }
        let tokenHash = SecretToken.hash(activationToken)
        let sealedToken = try sealer.seal(activationToken, context: Self.sealingContext(request.name))
        return try await database.withTransaction(logger: logger) { connection in
            // The backend's checks, in its order.
            if try await exists(connection, "SELECT 1 FROM devices.devices WHERE name = \(request.name)", logger) {
                throw RPCError.badRequest("Device name already in use", reason: "device_name_in_use")
            }
            var typeID: Int32?
            for try await id in try await connection.query(
                "SELECT id FROM devices.device_types WHERE name = \(request.deviceType)", logger: logger
            ).decode(Int32.self) { typeID = id }
            guard let typeID else {
                throw RPCError.badRequest("Unknown device type \"\(request.deviceType)\"", reason: "unknown_device_type")
            }
            if try await exists(connection, "SELECT 1 FROM devices.devices WHERE activation_token_hash = \(tokenHash)", logger) {
                throw RPCError.badRequest("Activation token already in use", reason: "activation_token_in_use")
            }
            let rows = try await connection.query(
                """
                WITH d AS (
                    INSERT INTO devices.devices (name, device_type_id, activation_token_hash, activation_token_sealed, synthetic)
                    VALUES (\(request.name), \(typeID), \(tokenHash), \(sealedToken), \(context.createsSynthetic))
                    RETURNING id, name, device_type_id, created_on, activated_on)
                SELECT \(unescaped: Self.deviceColumns) FROM d JOIN devices.device_types t ON t.id = d.device_type_id
                """, logger: logger)
            guard var device = try await Self.firstDevice(rows) else { throw RPCError.internal("device was not stored") }
            device.generatedActivationToken = generated
            return device
        }
    }

    /// D2: the app shows the installation manual of the device whose QR code it scanned.
    func deviceType(_ request: DeviceByName, context: CallContext) async throws -> DeviceTypeItem {
        let account = try await sessions.account(context)
        let name = request.name
        // Before D5 the device is not attached yet, so an unattached device counts as the caller's.
        let rows = try await database.query(
            """
            SELECT t.name, t.display_name, t.installation_manual_url
            FROM devices.devices d JOIN devices.device_types t ON t.id = d.device_type_id
            WHERE d.name = \(name) AND (d.building_id IS NULL OR d.building_id = \(account.buildingID))
            """, logger: context.logger)
        for try await (typeName, displayName, manual) in rows.decode((String, String, String).self) {
            return DeviceTypeItem(name: typeName, display_name: displayName, installation_manual_url: manual)
        }
        throw RPCError.notFound("Device \(name) not found", reason: "device_not_found")
    }

    /// D5–D7: the app links the scanned device to the account's building. Repeating it from the same account
    /// changes nothing; another account cannot take the device over.
    func attach(_ activation: DeviceActivation, context: CallContext) async throws -> DeviceItem {
        let account = try await sessions.account(context)
        let token = activation.activationToken
        let rows = try await database.query(
            """
            WITH target AS (
                SELECT id, building_id FROM devices.devices WHERE activation_token_hash = \(SecretToken.hash(token)) FOR UPDATE),
            attached AS (
                UPDATE devices.devices d SET building_id = \(account.buildingID), activated_on = now()
                FROM target WHERE d.id = target.id AND target.building_id IS NULL
                RETURNING d.id)
            SELECT target.id, target.building_id, EXISTS (SELECT 1 FROM attached) FROM target
            """, logger: context.logger)
        var found: (id: Int64, buildingID: Int64?)?
        for try await (id, buildingID, _) in rows.decode((Int64, Int64?, Bool).self) { found = (id, buildingID) }
        guard let found else {
            throw RPCError.notFound("No device found for provided activation token", reason: "device_token_not_found")
        }
        if let buildingID = found.buildingID, buildingID != account.buildingID {
            throw RPCError.badRequest("Device already activated", reason: "device_already_activated")
        }
        return try await device(id: found.id, latest: false, logger: context.logger)
    }

    /// E6–E8: the device trades its activation token (which never expires) for a session token.
    func activate(_ activation: DeviceActivation, context: CallContext) async throws -> SessionToken {
        let token = activation.activationToken
        let sessionToken = SecretToken.generate()
        let rows = try await database.query(
            """
            UPDATE devices.devices SET session_token_hash = CASE WHEN building_id IS NULL THEN session_token_hash ELSE \(SecretToken.hash(sessionToken)) END
            WHERE activation_token_hash = \(SecretToken.hash(token))
            RETURNING building_id IS NOT NULL
            """, logger: context.logger)
        for try await attached in rows.decode(Bool.self) {
            guard attached else { throw RPCError.forbidden("Device not attached to account", reason: "device_not_attached") }
            return SessionToken(session_token: sessionToken)
        }
        throw RPCError.notFound("No device found for provided activation token", reason: "device_token_not_found")
    }

    /// E4/E10: the app polls the device until its first measurement arrives.
    func get(_ request: DeviceByName, context: CallContext) async throws -> DeviceItem {
        let account = try await sessions.account(context)
        let name = request.name
        let rows = try await database.query(
            "SELECT id FROM devices.devices WHERE name = \(name) AND building_id = \(account.buildingID)", logger: context.logger)
        for try await id in rows.decode(Int64.self) {
            return try await device(id: id, latest: true, logger: context.logger)
        }
        throw RPCError.notFound("Device \(name) not found", reason: "device_not_found")
    }

    private func device(id: Int64, latest: Bool, logger: Logger) async throws -> DeviceItem {
        let rows = try await database.query(
            """
            SELECT \(unescaped: Self.deviceColumns),
                   (SELECT max(m.timestamp) FROM devices.measurements m WHERE m.device_id = d.id)
            FROM devices.devices d JOIN devices.device_types t ON t.id = d.device_type_id WHERE d.id = \(id)
            """, logger: logger)
        for try await (id, name, typeName, display, manual, created, activated, latestMeasurement) in rows.decode(
            (Int64, String, String, String, String, Date, Date?, Date?).self)
        {
            return DeviceItem(
                id: id, name: name, device_type: DeviceTypeItem(name: typeName, display_name: display, installation_manual_url: manual),
                created_on: created, activated_on: activated, latestMeasurement: latest ? .some(latestMeasurement) : .none)
        }
        throw RPCError.notFound("Device not found", reason: "device_not_found")
    }

    private static func firstDevice(_ rows: some AsyncSequence<PostgresRow, any Error>) async throws -> DeviceItem? {
        for try await (id, name, typeName, display, manual, created, activated) in rows.decode(
            (Int64, String, String, String, String, Date, Date?).self)
        {
            return DeviceItem(
                id: id, name: name, device_type: DeviceTypeItem(name: typeName, display_name: display, installation_manual_url: manual),
                created_on: created, activated_on: activated, latestMeasurement: .none)
        }
        return nil
    }
}

func exists(_ connection: DatabaseConnection, _ query: PostgresQuery, _ logger: Logger) async throws -> Bool {
    for try await _ in try await connection.query(query, logger: logger) { return true }
    return false
}
