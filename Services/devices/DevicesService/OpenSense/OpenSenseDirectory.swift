import CustodianContracts
import CustodianRPC
import CustodianRuntime
import Foundation
import PostgresNIO

/// What researchers see of OpenSense devices: the list (searched by the start of a device id, paged in registration
/// order) and a device's page with its batches per day. Each statement reads by an index (DevicesMigrations 30 and 3):
/// a page of devices, then each listed device's uploads by `device_ref`, never the whole of a table.
struct OpenSenseDirectory: Sendable {
    let database: Database

    func devices(_ query: OpenSenseDevicesQuery, context: CallContext) async throws -> OpenSenseDeviceList {
        let (synthetic, prefix, cursor, limit) = (query.synthetic.wanted, query.prefix, query.after, query.limit)
        // `LIMIT NULL` is no limit: without `limit` the whole list, as before paging.
        let rows = try await database.query(
            """
            SELECT d.device_id, d.registered_at, u.uploads, u.batches, u.last_upload,
                   (extract(epoch FROM d.registered_at) * 1000000)::bigint, d.id
            FROM devices.opensense_devices d
            CROSS JOIN LATERAL (
                SELECT count(*)::integer, coalesce(sum(batch_count), 0)::integer, max(received_at)
                FROM devices.opensense_uploads WHERE device_ref = d.id) u (uploads, batches, last_upload)
            WHERE (\(synthetic)::boolean IS NULL OR d.synthetic = \(synthetic))
              AND (\(prefix)::text IS NULL OR starts_with(d.device_id, \(prefix)))
              AND (\(cursor == nil) OR (d.registered_at, d.id)
                  > (timestamptz 'epoch' + \(cursor?.micros ?? 0) * interval '1 microsecond', \(cursor?.row ?? 0)))
            ORDER BY d.registered_at, d.id LIMIT \(limit)
            """, logger: context.logger)
        var devices: [OpenSenseDeviceList.Device] = []
        var last: String?
        for try await (id, registered, uploads, batches, lastUpload, micros, row) in rows.decode(
            (String, Date, Int, Int, Date?, Int64, Int64).self)
        {
            devices.append(
                OpenSenseDeviceList.Device(
                    device_id: id, registered_at: Self.iso(registered), uploads: uploads, batches: batches, last_upload: lastUpload.map(Self.iso)))
            last = OpenSenseDevicesQuery.Cursor(micros: micros, row: row).text
        }
        return OpenSenseDeviceList(devices: devices, next_after: limit != nil && devices.count == limit ? last : nil)
    }

    /// The batches per UTC day by the time the phone recorded them (`recorded_at`; a batch whose time could not be read
    /// has none and is not counted), from the index on (device_ref, recorded_at, id).
    func device(_ query: OpenSenseDeviceDaysQuery, context: CallContext) async throws -> OpenSenseDeviceDays {
        let (deviceID, days) = (query.deviceID, query.days)
        let rows = try await database.query(
            """
            SELECT d.id, d.registered_at, (SELECT max(received_at) FROM devices.opensense_uploads WHERE device_ref = d.id),
                   to_char(w.today - (\(days)::integer - 1), 'YYYY-MM-DD'), to_char(w.today, 'YYYY-MM-DD')
            FROM devices.opensense_devices d, (SELECT (now() AT TIME ZONE 'UTC')::date AS today) w
            WHERE d.device_id = \(deviceID)
            """, logger: context.logger)
        var found: (ref: Int64, registered: Date, lastUpload: Date?, from: String, to: String)?
        for try await row in rows.decode((Int64, Date, Date?, String, String).self) { found = row }
        guard let found else { throw RPCError.notFound("No OpenSense device \(deviceID)", reason: "device_not_found") }
        let counts = try await database.query(
            """
            SELECT to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::integer
            FROM devices.opensense_batches
            WHERE device_ref = \(found.ref)
              AND recorded_at >= \(found.from)::date::timestamp AT TIME ZONE 'UTC'
              AND recorded_at < (\(found.to)::date + 1)::timestamp AT TIME ZONE 'UTC'
            GROUP BY day ORDER BY day
            """, logger: context.logger)
        var perDay: [OpenSenseDeviceDays.Day] = []
        for try await (date, batches) in counts.decode((String, Int).self) {
            perDay.append(OpenSenseDeviceDays.Day(date: date, batches: batches))
        }
        return OpenSenseDeviceDays(
            device_id: deviceID, registered_at: Self.iso(found.registered), last_upload: found.lastUpload.map(Self.iso), from: found.from,
            to: found.to, days: perDay)
    }

    static func iso(_ date: Date) -> String { Date.ISO8601FormatStyle().format(date) }
}
