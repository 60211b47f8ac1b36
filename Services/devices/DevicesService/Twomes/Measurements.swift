import CustodianContracts
import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import PostgresNIO

/// Measurement uploads from devices (docs/twomes.md, "Measurement uploads"), variable- and fixed-interval, as their inputs read and checked them.
struct Measurements: Sendable {
    let database: Database
    let sessions: Sessions

    func store(_ upload: VariableIntervalUpload, context: CallContext) async throws -> UploadResult {
        try await store(
            upload.samples, properties: Set(upload.properties.map(\.name)), uploadTime: upload.uploadTime, digest: upload.bodyDigest, context: context
        )
    }

    func store(_ upload: FixedIntervalUpload, context: CallContext) async throws -> UploadResult {
        try await store(
            upload.samples, properties: Set(upload.series.map(\.property)), uploadTime: upload.uploadTime, digest: upload.bodyDigest, context: context
        )
    }

    /// One statement, one round trip: the session, the property names, the upload row (a retry — same device,
    /// same body — finds the first one and stores nothing) and the samples, atomically. `properties`: every property
    /// the upload names, with or without samples.
    private func store(
        _ samples: [MeasurementUpload.Sample], properties: Set<String>, uploadTime: Date, digest: [UInt8],
        context: CallContext
    ) async throws -> UploadResult {
        let credential = try sessions.deviceToken(context)
        let statement = StoreUpload(
            tokenHash: SecretToken.hash(credential), propertyNames: properties.sorted(), bodyHash: Data(digest), uploadTime: uploadTime,
            size: samples.count, sampleProperties: samples.map(\.property), sampleTimes: samples.map(\.timestamp), sampleValues: samples.map(\.value))
        guard let (deviceID, attached, unknown, serverTime) = try await database.execute(statement, logger: context.logger).first, deviceID != nil
        else {
            throw Sessions.invalidDeviceToken
        }
        guard attached == true else { throw Sessions.deviceNotAttached }
        if let unknown, !unknown.isEmpty {
            // The backend prints a Python set; sorted here so that the message is stable.
            let names = unknown.map { "'\($0)'" }.joined(separator: ", ")
            throw RPCError.badRequest("Invalid property name(s): {\(names)}", reason: "invalid_property_names")
        }
        guard let serverTime else { throw RPCError.internal("upload was not stored") }
        return UploadResult(server_time: TwomesTime.render(serverTime), size: samples.count)
    }

    /// The upload as one prepared statement. Checks come first in the data they produce: no device (a bad token),
    /// a device not attached, or a property its type lacks leaves every table untouched. The device's row is locked
    /// (`FOR KEY SHARE`) so that an erasure or a detach, which revokes its session token, waits for an upload under
    /// way and then deletes it too, or goes first and the upload finds no device (docs/erasure.md).
    struct StoreUpload: PostgresPreparedStatement {
        static let sql = """
            WITH device AS (
                SELECT id, device_type_id, building_id FROM devices.devices WHERE session_token_hash = $1 FOR KEY SHARE),
            known AS (
                SELECT p.id, p.name FROM devices.properties p JOIN device d ON p.device_type_id = d.device_type_id),
            unknown AS (
                SELECT array_agg(DISTINCT n ORDER BY n) AS names FROM unnest($2::text[]) AS n WHERE n NOT IN (SELECT name FROM known)),
            upload AS (
                INSERT INTO devices.uploads (device_id, body_sha256, server_time, device_time, size, building_id)
                SELECT d.id, $3, date_trunc('second', now()), $4, $5, d.building_id FROM device d
                WHERE d.building_id IS NOT NULL AND (SELECT names FROM unknown) IS NULL
                ON CONFLICT (device_id, body_sha256) DO UPDATE SET size = devices.uploads.size
                RETURNING id, server_time, (xmax = 0) AS fresh),
            stored AS (
                INSERT INTO devices.measurements (device_id, property_id, timestamp, value, upload_id, building_id)
                SELECT d.id, k.id, s.t, s.v, u.id, d.building_id
                FROM unnest($6::text[], $7::timestamptz[], $8::text[]) AS s(n, t, v)
                JOIN known k ON k.name = s.n CROSS JOIN device d CROSS JOIN upload u
                WHERE u.fresh
                ON CONFLICT (device_id, property_id, timestamp) DO NOTHING)
            SELECT (SELECT id FROM device), (SELECT building_id IS NOT NULL FROM device), (SELECT names FROM unknown),
                   (SELECT server_time FROM upload)
            """
        typealias Row = (Int64?, Bool?, [String]?, Date?)

        var tokenHash: Data
        var propertyNames: [String]
        var bodyHash: Data
        var uploadTime: Date
        var size: Int
        var sampleProperties: [String]
        var sampleTimes: [Date]
        var sampleValues: [String]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 8)
            try bindings.append(tokenHash)
            bindings.append(propertyNames)
            try bindings.append(bodyHash)
            bindings.append(uploadTime)
            bindings.append(size)
            bindings.append(sampleProperties)
            bindings.append(sampleTimes)
            bindings.append(sampleValues)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            try row.decode(Row.self)
        }
    }
}
