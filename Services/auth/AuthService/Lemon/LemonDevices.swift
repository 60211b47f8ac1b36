import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianRuntime
import Foundation
import Logging
import PostgresNIO

/// What an app does to its own registration: delete itself (and everything it submitted), deactivate itself,
/// set or clear its push token (docs/lemon.md, "Device routes"). The app is the principal of the verified token.
struct LemonDevices: Sendable {
    let database: Database
    let services: RPCClient
    let sessions: LemonSessions

    /// Removes the app's submissions (statistics) first, then the app with its sessions: a failure on the way
    /// leaves the app able to retry, never data without its owner's means to delete it.
    func delete(context: CallContext) async throws -> LemonNoData {
        let (app, deviceId) = try await caller(context)
        _ = try await forget(app: app, deviceId: deviceId, context: context)
        return LemonNoData()
    }

    /// The submissions first, then the app with its sessions (cascade): the order of ``delete(context:)``. Counts by kind.
    private func forget(app: Int64, deviceId: String, context: CallContext) async throws -> [String: Int] {
        let forgotten = try await services.call(StatisticsMethods.deviceForget, input: ForgetDeviceInput(deviceId: deviceId), context: context)
        let apps = try await database.withTransaction(logger: context.logger) { connection in
            try await connection.count("DELETE FROM auth.lemon_apps WHERE id = \(app)", logger: context.logger)
        }
        context.logger.info("lemon app deleted", metadata: ["device": .string(deviceId)])
        return ["app_instances": apps, "submissions": forgotten.deleted]
    }

    /// `DELETE /admin/v1/lemon/apps/{device_id}`: an operator's erasure of an app instance, as the app's own deletion
    /// makes it. An unknown (or erased) instance answers a receipt of zeros.
    func erase(_ input: LemonAppByID, context: CallContext) async throws -> ErasureReceipt {
        var deleted = ["app_instances": 0, "submissions": 0]
        let rows = try await database.query(
            "SELECT id FROM auth.lemon_apps WHERE device_id = \(input.deviceID)::uuid", logger: context.logger)
        var found: Int64?
        for try await id in rows.decode(Int64.self) { found = id }
        if let app = found { deleted = try await forget(app: app, deviceId: input.deviceID, context: context) }
        return ErasureReceipt(target: "lemon_app", id: input.deviceID, deleted: deleted, context: context)
    }

    /// `GET /admin/v1/lemon/apps`, by device id.
    func list(_ query: LemonAppsQuery, context: CallContext) async throws -> LemonAppsPage {
        let after = query.after, limit = query.limit, synthetic = query.synthetic.wanted
        let rows = try await database.query(
            """
            SELECT device_id::text, operating_system, created_at, deactivated_at FROM auth.lemon_apps
            WHERE device_id::text > \(after) AND (\(synthetic)::boolean IS NULL OR synthetic = \(synthetic))
            ORDER BY device_id::text LIMIT \(limit)
            """, logger: context.logger)
        var apps: [LemonAppsPage.App] = []
        for try await (id, system, created, deactivated) in rows.decode((String, String, Date, Date?).self) {
            apps.append(
                LemonAppsPage.App(
                    device_id: id, operating_system: system, registered_at: created.formatted(.iso8601),
                    deactivated_at: deactivated.map { $0.formatted(.iso8601) }))
        }
        return LemonAppsPage(apps: apps, next_after: apps.count == limit ? apps.last?.device_id : nil)
    }

    /// `?status=true|false`. Deactivation ends every session at once; a deactivated app cannot shake hands.
    func setActive(_ input: LemonDeviceStatus, context: CallContext) async throws -> LemonNoData {
        let (app, _) = try await caller(context)
        if input.active {
            try await database.query("UPDATE auth.lemon_apps SET deactivated_at = NULL WHERE id = \(app)", logger: context.logger)
        } else {
            try await database.query(
                "UPDATE auth.lemon_apps SET deactivated_at = coalesce(deactivated_at, now()) WHERE id = \(app)", logger: context.logger)
            try await sessions.revokeAll(app: app, logger: context.logger)
        }
        return LemonNoData()
    }

    func updatePushToken(_ input: LemonPushTokenUpdate, context: CallContext) async throws -> LemonNoData {
        let (app, _) = try await caller(context)
        let token = input.pushToken
        do {
            try await database.query("UPDATE auth.lemon_apps SET push_token = \(token) WHERE id = \(app)", logger: context.logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw RPCError.unauthenticated("Push token already exists in database")
        }
        return LemonNoData()
    }

    func deletePushToken(context: CallContext) async throws -> LemonNoData {
        let (app, _) = try await caller(context)
        try await database.query("UPDATE auth.lemon_apps SET push_token = NULL WHERE id = \(app)", logger: context.logger)
        return LemonNoData()
    }

    /// The app behind the request's token; the gateway has checked the token and that its session is live.
    func caller(_ context: CallContext) async throws -> (Int64, String) {
        guard let principal = context.principal, UUID(uuidString: principal.id) != nil else {
            throw RPCError.unauthenticated("Missing or Invalid JWT")
        }
        let rows = try await database.query(
            "SELECT id FROM auth.lemon_apps WHERE device_id = \(principal.id)::uuid", logger: context.logger)
        for try await id in rows.decode(Int64.self) { return (id, principal.id) }
        throw RPCError.unauthenticated("Missing or Invalid JWT")
    }
}
