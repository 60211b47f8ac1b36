import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianRuntime
import Foundation
import PostgresNIO

/// OpenSense batches for researchers: by device, probe and time range, as CSV or NDJSON, in upload order.
struct OpenSenseExport: Sendable {
    let database: Database

    static let columns = ["device_id", "probe", "datetime", "payload"]

    func page(_ query: OpenSenseExportQuery, context: CallContext) async throws -> StreamPage {
        let format = query.format, device = query.deviceID, probe = query.probe, from = query.from, to = query.to
        let synthetic = query.synthetic.wanted
        guard let after = query.cursor.map({ Int64($0) }) ?? Int64(0) else {
            throw RPCError.badRequest("invalid export cursor", reason: "invalid_cursor")
        }
        // Batches whose datetime could not be read have no time and so fall outside any time range. A batch can be
        // a megabyte: the page ends with the first one that starts past the byte budget, before it leaves PostgreSQL.
        let rows = try await database.query(
            """
            SELECT id, device_id, probe, datetime, payload FROM (
                SELECT b.id, d.device_id, b.probe, b.datetime, b.payload::text AS payload,
                       sum(octet_length(b.payload::text)) OVER (ORDER BY b.id) - octet_length(b.payload::text) AS before
                FROM devices.opensense_batches b JOIN devices.opensense_devices d ON d.id = b.device_ref
                WHERE b.id > \(after)
                  AND (\(device)::text IS NULL OR d.device_id = \(device))
                  AND (\(probe)::text IS NULL OR b.probe = \(probe))
                  AND (\(synthetic)::boolean IS NULL OR d.synthetic = \(synthetic))
                  AND (\(from)::timestamptz IS NULL OR b.recorded_at >= \(from))
                  AND (\(to)::timestamptz IS NULL OR b.recorded_at < \(to))
                ORDER BY b.id LIMIT \(ResearcherExport.pageSize)) AS page
            WHERE before < \(ResearcherExport.pageByteBudget)
            ORDER BY id
            """, logger: context.logger)
        var chunk = query.cursor == nil && format == .csv ? ResearcherExport.csvLine(Self.columns) : ""
        var last: Int64?
        var count = 0
        var bytes = 0
        for try await (id, deviceID, probe, datetime, payload) in rows.decode((Int64, String, String, String, String).self) {
            count += 1
            bytes += payload.utf8.count
            last = id
            switch format {
            case .csv:
                chunk += ResearcherExport.csvLine([deviceID, probe, datetime, payload])
            case .ndjson:
                let payloadValue = (try? JSONDecoder().decode(JSONValue.self, from: Data(payload.utf8))) ?? .string(payload)
                chunk += try ResearcherExport.ndjsonLine([
                    "device_id": .string(deviceID), "probe": .string(probe), "datetime": .string(datetime), "payload": payloadValue,
                ])
            }
        }
        return StreamPage(
            headers: query.cursor == nil ? ResearcherExport.headers(format, name: "opensense-batches") : nil,
            chunk: chunk, next: count == ResearcherExport.pageSize || bytes >= ResearcherExport.pageByteBudget ? last.map(String.init) : nil)
    }
}
