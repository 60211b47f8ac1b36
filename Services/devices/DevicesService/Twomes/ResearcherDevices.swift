import CustodianContracts
import CustodianRPC
import CustodianRuntime
import Foundation
import Logging
import PostgresNIO

/// The devices as a researcher watches a study: which are attached, which report, which went silent. Every look at
/// the readings is bounded: by device (`measurements_by_device_time`, or the primary key by device and property) and,
/// where the question is about a time span, by time too, so that only that span's monthly partitions are read.
struct ResearcherDevices: Sendable {
    let database: Database
    /// `CUSTODIAN_SILENT_AFTER`: when an activated, attached device counts as silent in `/metrics`.
    let silentAfter: Duration

    /// Whether device `d` sent a reading in the last `seconds`: a probe of its index in the partitions of that span only
    /// (the bound is stable, so the rest are pruned when the statement starts). A scalar subquery rather than `EXISTS`,
    /// so that the planner cannot turn it into a join that reads a whole partition.
    static func reportedWithin(seconds: Int) -> String {
        """
        ((SELECT 1 FROM devices.measurements r WHERE r.device_id = d.id AND r.timestamp >= now() - interval '\(seconds) seconds' LIMIT 1) IS NOT NULL)
        """
    }

    /// The device's state (``DeviceState``), from its row `d`.
    static let stateSQL = """
        CASE WHEN d.building_id IS NOT NULL THEN 'attached' WHEN d.detached_on IS NOT NULL THEN 'detached' ELSE 'registered' END
        """

    /// `GET /admin/v1/devices`. Ordered by name, the filters pick a page from the names' index and only that page's
    /// last readings are looked up; ordered by last reading (or silent), the filtered devices' last readings are looked
    /// up (one index probe per partition each) and sorted.
    func list(_ query: DevicesQuery, context: CallContext) async throws -> DevicesPage {
        let byName = query.sort == .name
        let after = query.after, limit = query.limit, printed = query.labelPrinted, synthetic = query.synthetic.wanted
        let q = query.q, type = query.deviceType, state = query.state?.rawValue
        let nameLimit: Int? = byName ? limit : nil
        let cursor = query.lastSeenCursor
        let afterSeen = cursor != nil, cursorMicros = cursor?.lastSeenMicros, cursorName = cursor?.name ?? ""
        let silent = query.silentFor.map { "(d.building_id IS NOT NULL AND d.activated_on IS NOT NULL AND NOT \(Self.reportedWithin(seconds: $0)))" }
        let rows = try await database.query(
            """
            WITH filtered AS (
                SELECT d.id, d.name, t.name AS type, a.pseudonym, d.created_on, d.activated_on, d.label_printed_on, p.id AS heartbeat
                FROM devices.devices d
                JOIN devices.device_types t ON t.id = d.device_type_id
                LEFT JOIN devices.properties p ON p.device_type_id = d.device_type_id AND p.name = \(Heartbeats.property)
                LEFT JOIN devices.buildings b ON b.id = d.building_id
                LEFT JOIN devices.accounts a ON a.id = b.account_id
                WHERE (NOT \(byName) OR d.name > \(after))
                  AND (\(printed)::boolean IS NULL OR (d.label_printed_on IS NOT NULL) = \(printed))
                  AND (\(synthetic)::boolean IS NULL OR d.synthetic = \(synthetic))
                  AND (\(q)::text IS NULL OR (d.name >= \(q) AND starts_with(d.name, \(q))))
                  AND (\(type)::text IS NULL OR t.name = \(type))
                  AND (\(state)::text IS NULL OR \(unescaped: Self.stateSQL) = \(state))
                  AND \(unescaped: silent ?? "true")
                ORDER BY d.name LIMIT \(nameLimit)),
            seen AS (
                SELECT f.*, (SELECT max(m.timestamp) FROM devices.measurements m WHERE m.device_id = f.id) AS last_seen FROM filtered f)
            SELECT s.name, s.type, s.pseudonym, s.created_on, s.activated_on, s.last_seen,
                   (extract(epoch FROM s.last_seen) * 1000000)::bigint, s.label_printed_on,
                   CASE WHEN s.heartbeat IS NOT NULL THEN
                       (SELECT count(*) FROM devices.measurements m
                        WHERE m.device_id = s.id AND m.property_id = s.heartbeat AND m.timestamp >= now() - interval '24 hours')::int END
            FROM seen s
            WHERE NOT \(afterSeen)
               OR CASE WHEN \(cursorMicros)::bigint IS NULL THEN (s.last_seen IS NULL AND s.name > \(cursorName)) OR s.last_seen IS NOT NULL
                       ELSE (s.last_seen, s.name) > ('epoch'::timestamptz + \(cursorMicros) * interval '1 microsecond', \(cursorName)) END
            ORDER BY CASE WHEN \(byName) THEN s.name END, s.last_seen ASC NULLS FIRST, s.name
            LIMIT \(limit)
            """, logger: context.logger)
        var devices: [DevicesPage.Device] = []
        var last: LastSeenCursor?
        for try await (name, type, pseudonym, created, activated, lastSeen, lastSeenMicros, printedOn, heartbeats) in rows.decode(
            (String, String, Int?, Date, Date?, Date?, Int64?, Date?, Int?).self)
        {
            devices.append(
                DevicesPage.Device(
                    name: name, device_type: type, pseudonym: pseudonym, created_on: TwomesTime.render(created),
                    activated_on: activated.map(TwomesTime.render), last_seen: lastSeen.map(TwomesTime.render),
                    label_printed_on: printedOn.map(TwomesTime.render), heartbeats_24h: heartbeats))
            last = LastSeenCursor(lastSeenMicros: lastSeenMicros, name: name)
        }
        let next = devices.count == limit ? (byName ? last?.name : last?.text) : nil
        return DevicesPage(devices: devices, next_after: next)
    }

    /// `GET /admin/v1/devices/{device_name}`.
    func detail(_ query: DeviceDetailQuery, context: CallContext) async throws -> DeviceDetail {
        let logger = context.logger
        let name = query.name
        let rows = try await database.query(
            """
            SELECT d.id, d.device_type_id, t.name, a.pseudonym, d.created_on, d.activated_on, d.label_printed_on, p.id,
                   (SELECT max(m.timestamp) FROM devices.measurements m WHERE m.device_id = d.id)
            FROM devices.devices d
            JOIN devices.device_types t ON t.id = d.device_type_id
            LEFT JOIN devices.properties p ON p.device_type_id = d.device_type_id AND p.name = \(Heartbeats.property)
            LEFT JOIN devices.buildings b ON b.id = d.building_id
            LEFT JOIN devices.accounts a ON a.id = b.account_id
            WHERE d.name = \(name)
            """, logger: logger)
        var found: (id: Int64, typeID: Int32, type: String, pseudonym: Int?, created: Date, activated: Date?, printed: Date?, heartbeat: Int32?)?
        var lastSeen: Date?
        for try await (id, typeID, type, pseudonym, created, activated, printed, heartbeat, seen) in rows.decode(
            (Int64, Int32, String, Int?, Date, Date?, Date?, Int32?, Date?).self)
        {
            found = (id, typeID, type, pseudonym, created, activated, printed, heartbeat)
            lastSeen = seen
        }
        guard let device = found else { throw RPCError.notFound("Device \(name) not found", reason: "device_not_found") }
        let window = try await DayWindow.last(query.days, database: database, logger: logger)
        var attachments = try await attachments(of: device.id, logger: logger)
        if let current = device.pseudonym, !attachments.contains(where: { $0.pseudonym == current }) {
            attachments.append(DeviceDetail.Attachment(pseudonym: current, first_upload: nil, last_upload: nil, uploads: 0))
        }
        let days = try await heartbeatDays(of: device.id, property: device.heartbeat, window: window, logger: logger)
        return DeviceDetail(
            name: name, device_type: device.type, pseudonym: device.pseudonym, created_on: TwomesTime.render(device.created),
            activated_on: device.activated.map(TwomesTime.render), last_seen: lastSeen.map(TwomesTime.render),
            label_printed_on: device.printed.map(TwomesTime.render), attachments: attachments, from: window.first, to: window.last, days: days,
            latest: try await latest(of: device.id, type: device.typeID, logger: logger))
    }

    /// Its uploads by the account they were made for: an index-only scan of `uploads_by_device_building`.
    private func attachments(of device: Int64, logger: Logger) async throws -> [DeviceDetail.Attachment] {
        let rows = try await database.query(
            """
            SELECT a.pseudonym, min(u.server_time), max(u.server_time), count(*)::int
            FROM devices.uploads u
            LEFT JOIN devices.buildings b ON b.id = u.building_id LEFT JOIN devices.accounts a ON a.id = b.account_id
            WHERE u.device_id = \(device)
            GROUP BY u.building_id, a.pseudonym ORDER BY min(u.server_time)
            """, logger: logger)
        var attachments: [DeviceDetail.Attachment] = []
        for try await (pseudonym, first, last, uploads) in rows.decode((Int?, Date, Date, Int).self) {
            attachments.append(
                DeviceDetail.Attachment(
                    pseudonym: pseudonym, first_upload: TwomesTime.render(first), last_upload: TwomesTime.render(last), uploads: uploads))
        }
        return attachments
    }

    /// Heartbeats a day in the window: the primary key's range for (device, heartbeat) in the window's partitions. Today
    /// is measured against the heartbeats expected so far (one per 600 s since midnight, at least one).
    private func heartbeatDays(of device: Int64, property: Int32?, window: DayWindow, logger: Logger) async throws -> [DeviceDetail.Day] {
        guard let property else { return [] }
        let from = window.start, to = window.end
        let rows = try await database.query(
            """
            SELECT to_char((m.timestamp AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD'), count(*)::int FROM devices.measurements m
            WHERE m.device_id = \(device) AND m.property_id = \(property) AND m.timestamp >= \(from) AND m.timestamp < \(to)
            GROUP BY 1 ORDER BY 1
            """, logger: logger)
        let expectedToday = max(1, Int(window.intoToday) / Heartbeats.intervalSeconds)
        var days: [DeviceDetail.Day] = []
        for try await (date, count) in rows.decode((String, Int).self) {
            let expected = date == window.last ? expectedToday : Heartbeats.expectedPerDay
            days.append(DeviceDetail.Day(date: date, heartbeats: count, completeness: Heartbeats.completeness(count, of: expected)))
        }
        return days
    }

    /// The newest reading of each of its type's properties: one backward probe of the primary key per partition each.
    private func latest(of device: Int64, type: Int32, logger: Logger) async throws -> [DeviceDetail.Reading] {
        let rows = try await database.query(
            """
            SELECT p.name, p.unit, l.value, l.timestamp FROM devices.properties p
            CROSS JOIN LATERAL (
                SELECT m.value, m.timestamp FROM devices.measurements m
                WHERE m.device_id = \(device) AND m.property_id = p.id ORDER BY m.timestamp DESC LIMIT 1) l
            WHERE p.device_type_id = \(type)
            ORDER BY p.name
            """, logger: logger)
        var readings: [DeviceDetail.Reading] = []
        for try await (property, unit, value, timestamp) in rows.decode((String, String?, String, Date).self) {
            readings.append(DeviceDetail.Reading(property: property, unit: unit, value: value, timestamp: TwomesTime.render(timestamp)))
        }
        return readings
    }

    /// `/metrics`: activated, attached devices (not synthetic ones) that did and did not report within `silentAfter`.
    func activity(context: CallContext) async throws -> TwomesActivity {
        let seconds = Int(silentAfter.components.seconds)
        let rows = try await database.query(
            """
            SELECT count(*) FILTER (WHERE reported)::int, count(*) FILTER (WHERE NOT reported)::int FROM (
                SELECT \(unescaped: Self.reportedWithin(seconds: seconds)) AS reported FROM devices.devices d
                WHERE d.building_id IS NOT NULL AND d.activated_on IS NOT NULL AND NOT d.synthetic) AS attached
            """, logger: context.logger)
        for try await (reporting, silent) in rows.decode((Int, Int).self) {
            return TwomesActivity(reporting: reporting, silent: silent, silentAfterSeconds: seconds)
        }
        return TwomesActivity(reporting: 0, silent: 0, silentAfterSeconds: seconds)
    }
}
