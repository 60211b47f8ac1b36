import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import CustodianWeb
import Foundation
import PostgresNIO

/// What researchers do with OpenSense: see the devices, recover a device's storage key to decrypt data
/// taken from a phone, and publish a new configuration.
struct OpenSenseAdmin: Sendable {
    let database: Database
    let sealer: Sealer

    struct DeviceSummary: Encodable, Sendable {
        var device_id: String
        var registered_at: String
        var uploads: Int
        var batches: Int
        @ExplicitNull var last_upload: String?
    }

    func devices(context: CallContext) async throws -> [String: [DeviceSummary]] {
        let rows = try await database.query(
            """
            SELECT d.device_id, d.registered_at, count(u.id)::integer, coalesce(sum(u.batch_count), 0)::integer, max(u.received_at)
            FROM devices.opensense_devices d LEFT JOIN devices.opensense_uploads u ON u.device_ref = d.id
            GROUP BY d.id ORDER BY d.registered_at, d.id
            """, logger: context.logger)
        var devices: [DeviceSummary] = []
        for try await (id, registered, uploads, batches, last) in rows.decode((String, Date, Int, Int, Date?).self) {
            devices.append(DeviceSummary(
                device_id: id, registered_at: Self.iso(registered), uploads: uploads, batches: batches, last_upload: last.map(Self.iso)))
        }
        return ["devices": devices]
    }

    struct RecoveredKey: Codable, Sendable {
        var device_id: String
        var key: String
    }

    func key(_ input: HTTPInput, context: CallContext) async throws -> RecoveredKey {
        let deviceID = input.path["device_id"] ?? ""
        let rows = try await database.query(
            "SELECT key_sealed FROM devices.opensense_devices WHERE device_id = \(deviceID)", logger: context.logger)
        for try await sealed in rows.decode(Data.self) {
            context.logger.notice("OpenSense key recovered", metadata: ["device_id": .string(deviceID), "admin": .string(context.principal?.id ?? "-")])
            return RecoveredKey(device_id: deviceID, key: try sealer.open(sealed, context: OpenSense.sealingContext(deviceID)))
        }
        throw RPCError.notFound("No OpenSense device \(deviceID)", reason: "device_not_found")
    }

    /// Publishes a new configuration; its `version` is the next number, whatever the document said.
    func replaceConfig(_ input: HTTPInput, context: CallContext) async throws -> JSONValue {
        var document = try OpenSenseConfig.validated(input.body)
        let logger = context.logger
        return try await database.withTransaction(logger: logger) { connection in
            try await connection.query("LOCK TABLE devices.opensense_configs IN EXCLUSIVE MODE", logger: logger)
            var next = 1
            for try await version in try await connection.query(
                "SELECT coalesce(max(version), 0) + 1 FROM devices.opensense_configs", logger: logger
            ).decode(Int.self) { next = version }
            document["version"] = .int(Int64(next))
            let text = String(decoding: try JSONEncoder().encode(JSONValue.object(document)), as: UTF8.self)
            try await connection.query(
                "INSERT INTO devices.opensense_configs (version, document) VALUES (\(next), \(text)::jsonb)", logger: logger)
            return .object(document)
        }
    }

    static func iso(_ date: Date) -> String { Date.ISO8601FormatStyle().format(date) }
}

/// The configuration document the thesis defines (docs/opensense.md, "GET /config"): only its keys, each of its type.
enum OpenSenseConfig {
    static func validated(_ body: JSONValue) throws -> [String: JSONValue] {
        guard case .object(let fields) = body else {
            throw RPCError.validation(location: ["body"], message: "the configuration must be a JSON object")
        }
        let known: Set<String> = ["name", "version", "dataUploadOnWifiOnly", "baseUrl", "configUpdatePeriod", "dataArchivePeriod",
                                  "dataUploadPeriod", "maxDataFileSizeKb", "dataRequests"]
        let unknown = Set(fields.keys).subtracting(known).sorted()
        guard unknown.isEmpty else {
            throw RPCError.validation(location: ["body", unknown[0]], message: "unknown configuration keys: \(unknown.joined(separator: ", "))")
        }
        func require(_ key: String) throws -> JSONValue {
            guard let value = fields[key], !value.isNull else { throw RPCError.validation(location: ["body", key], message: "\(key) is required") }
            return value
        }
        guard case .string(let name) = try require("name"), !name.isEmpty, name.count <= 200 else {
            throw RPCError.validation(location: ["body", "name"], message: "name must be a string of 1 to 200 characters")
        }
        guard case .string(let baseURL) = try require("baseUrl"), WebURL.isWeb(baseURL) else {
            throw RPCError.validation(location: ["body", "baseUrl"], message: "baseUrl must be an http(s) URL")
        }
        guard case .bool = try require("dataUploadOnWifiOnly") else {
            throw RPCError.validation(location: ["body", "dataUploadOnWifiOnly"], message: "dataUploadOnWifiOnly must be true or false")
        }
        for key in ["configUpdatePeriod", "dataArchivePeriod", "dataUploadPeriod", "maxDataFileSizeKb"] {
            guard case .int(let number) = try require(key), number > 0, number <= 31_536_000 else {
                throw RPCError.validation(location: ["body", key], message: "\(key) must be a positive whole number")
            }
        }
        guard case .object(let requests) = try require("dataRequests") else {
            throw RPCError.validation(location: ["body", "dataRequests"], message: "dataRequests must map probe names to lists of requests")
        }
        for (probe, list) in requests {
            guard case .array(let items) = list, items.allSatisfy({
                guard case .object(let request) = $0, case .int(let interval)? = request["interval"] else { return false }
                return interval >= -1
            }) else {
                throw RPCError.validation(location: ["body", "dataRequests", probe], message: "each request of \(probe) must be an object with a whole-number interval of -1 or more")
            }
        }
        return fields
    }
}
