import CustodianContracts
import CustodianHTTP
import CustodianRPC
import CustodianRuntime
import Foundation
import PostgresNIO

/// Twomes measurements for researchers: by pseudonym, device and/or property, over a time range, as CSV or
/// NDJSON. Pages follow (timestamp, device, property) so that each is one index range scan.
struct MeasurementExport: Sendable {
    let database: Database

    static let columns = ["pseudonym", "device", "device_type", "property", "unit", "timestamp", "value"]

    func page(_ query: MeasurementExportQuery, context: CallContext) async throws -> StreamPage {
        let format = query.format, pseudonym = query.pseudonym, device = query.device, property = query.property
        let from = query.from ?? Date(timeIntervalSince1970: 0)
        let to = query.to ?? Date(timeIntervalSince1970: 32_503_680_000)
        let after = try Cursor(query.cursor)
        let synthetic = query.synthetic.wanted

        let rows = try await database.query(
            """
            SELECT a.pseudonym, d.name, t.name, p.name, p.unit, m.timestamp, m.value, m.device_id, m.property_id,
                   (extract(epoch FROM m.timestamp) * 1000000)::bigint
            FROM devices.measurements m
            JOIN devices.devices d ON d.id = m.device_id
            JOIN devices.device_types t ON t.id = d.device_type_id
            JOIN devices.properties p ON p.id = m.property_id
            LEFT JOIN devices.buildings b ON b.id = m.building_id
            LEFT JOIN devices.accounts a ON a.id = b.account_id
            WHERE m.timestamp >= \(from) AND m.timestamp < \(to)
              AND (\(pseudonym)::integer IS NULL OR a.pseudonym = \(pseudonym))
              AND (\(device)::text IS NULL OR d.name = \(device))
              AND (\(property)::text IS NULL OR p.name = \(property))
              AND (\(synthetic)::boolean IS NULL OR (d.synthetic OR coalesce(a.synthetic, false)) = \(synthetic))
              AND ((extract(epoch FROM m.timestamp) * 1000000)::bigint, m.device_id, m.property_id) > (\(after.micros), \(after.device), \(after.property))
            ORDER BY m.timestamp, m.device_id, m.property_id
            LIMIT \(ResearcherExport.pageSize)
            """, logger: context.logger)
        var chunk = query.cursor == nil && format == .csv ? ResearcherExport.csvLine(Self.columns) : ""
        var last: Cursor?
        var count = 0
        for try await (pseudonym, device, type, property, unit, timestamp, value, deviceID, propertyID, micros) in rows.decode(
            (Int?, String, String, String, String?, Date, String, Int64, Int32, Int64).self)
        {
            // A page of 1000 long values could outgrow a frame: it ends early, and the next one goes on from here.
            if chunk.utf8.count >= ResearcherExport.pageByteBudget { break }
            count += 1
            last = Cursor(micros: micros, device: deviceID, property: propertyID)
            switch format {
            case .csv:
                chunk += ResearcherExport.csvLine([pseudonym.map(String.init), device, type, property, unit, TwomesTime.render(timestamp), value])
            case .ndjson:
                chunk += try ResearcherExport.ndjsonLine([
                    "pseudonym": pseudonym.map { .int(Int64($0)) } ?? .null, "device": .string(device), "device_type": .string(type),
                    "property": .string(property), "unit": unit.map { .string($0) } ?? .null,
                    "timestamp": .string(TwomesTime.render(timestamp)), "value": .string(value),
                ])
            }
        }
        return StreamPage(
            headers: query.cursor == nil ? ResearcherExport.headers(format, name: "measurements") : nil,
            chunk: chunk, next: count == ResearcherExport.pageSize || chunk.utf8.count >= ResearcherExport.pageByteBudget ? last?.text : nil)
    }

    struct Cursor {
        var micros: Int64
        var device: Int64
        var property: Int32

        init(micros: Int64, device: Int64, property: Int32) {
            self.micros = micros
            self.device = device
            self.property = property
        }

        init(_ text: String?) throws {
            guard let text else {
                self.init(micros: .min, device: .min, property: .min)
                return
            }
            let parts = text.split(separator: ":")
            guard parts.count == 3, let micros = Int64(parts[0]), let device = Int64(parts[1]), let property = Int32(parts[2]) else {
                throw RPCError.badRequest("invalid export cursor", reason: "invalid_cursor")
            }
            self.init(micros: micros, device: device, property: property)
        }

        var text: String { "\(micros):\(device):\(property)" }
    }
}
