import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import PostgresNIO

/// Resolves the opaque session tokens the gateway forwards: the app's account token and the device's token.
struct Sessions: Sendable {
    let database: Database

    struct Account: Sendable {
        var id: Int64
        var buildingID: Int64
    }

    struct Device: Sendable {
        var id: Int64
        var deviceTypeID: Int32
        var buildingID: Int64?
    }

    /// The account whose session token the app sent. Its first use ends the activation token (docs/twomes.md, "Provisioning steps", C7).
    func account(_ context: CallContext) async throws -> Account {
        let hash = SecretToken.hash(try token(context, kind: "account"))
        // Only the first use writes: it clears the activation token.
        let rows = try await database.query(
            """
            WITH account AS (
                SELECT a.id, b.id AS building_id, a.activation_token_hash IS NOT NULL AS first_use
                FROM devices.accounts a JOIN devices.buildings b ON b.account_id = a.id
                WHERE a.session_token_hash = \(hash)),
            cleared AS (
                UPDATE devices.accounts SET activation_token_hash = NULL
                WHERE id = (SELECT id FROM account WHERE first_use))
            SELECT id, building_id FROM account
            """, logger: context.logger)
        for try await (id, buildingID) in rows.decode((Int64, Int64).self) {
            return Account(id: id, buildingID: buildingID)
        }
        throw RPCError.unauthenticated("Invalid account session token", reason: "invalid_account_token")
    }

    /// The device whose session token the firmware sent; it must be attached to a building.
    func device(_ context: CallContext) async throws -> Device {
        let hash = SecretToken.hash(try deviceToken(context))
        let rows = try await database.query(
            "SELECT id, device_type_id, building_id FROM devices.devices WHERE session_token_hash = \(hash)", logger: context.logger)
        for try await (id, typeID, buildingID) in rows.decode((Int64, Int32, Int64?).self) {
            guard buildingID != nil else { throw Self.deviceNotAttached }
            return Device(id: id, deviceTypeID: typeID, buildingID: buildingID)
        }
        throw Self.invalidDeviceToken
    }

    /// The device token as sent, for the statements that check it themselves (an upload, in one round trip).
    func deviceToken(_ context: CallContext) throws -> String {
        try token(context, kind: "device")
    }

    static let invalidDeviceToken = RPCError.unauthenticated("Invalid device session token", reason: "invalid_device_token")
    static let deviceNotAttached = RPCError.forbidden("Device not attached to account", reason: "device_not_attached")

    private func token(_ context: CallContext, kind: PrincipalKind) throws -> String {
        // The gateway refuses requests without a token; a call without one comes from a misconfigured route.
        guard let credential = context.credential, credential.expectedKind == kind else {
            throw RPCError.unauthenticated("Invalid \(kind) session token", reason: "invalid_\(kind)_token")
        }
        return credential.token
    }
}
