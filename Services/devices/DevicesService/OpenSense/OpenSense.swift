import Crypto
import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import PostgresNIO

/// The OpenSense framework's backend (thesis 3.4, 4.8): device registration with a server-generated storage
/// key, the remote configuration, and integrity-checked uploads of probe batches.
struct OpenSense: Sendable {
    let database: Database
    let sealer: Sealer

    static let maximumBatches = 10_000

    struct RegisterResult: Codable, Sendable { var key: String }
    struct UploadResult: Codable, Sendable { var status: String }

    /// POST /register: a new device gets its key once; the server keeps it sealed for researchers only.
    func register(_ input: HTTPInput, context: CallContext) async throws -> RegisterResult {
        let deviceID = try Self.deviceID(input)
        let key = OpenSenseKeys.generate()
        let sealed = try sealer.seal(key, context: Self.sealingContext(deviceID))
        let rows = try await database.query(
            """
            INSERT INTO devices.opensense_devices (device_id, key_sealed) VALUES (\(deviceID), \(sealed))
            ON CONFLICT (device_id) DO NOTHING RETURNING id
            """, logger: context.logger)
        for try await _ in rows.decode(Int64.self) { return RegisterResult(key: key) }
        // The thesis: the key cannot be retrieved again from the server.
        throw RPCError(.conflict, reason: "device_already_registered", message: "Device already registered")
    }

    static func sealingContext(_ deviceID: String) -> String { "opensense-key:\(deviceID)" }

    /// GET /config: the current configuration document.
    func config(context: CallContext) async throws -> JSONValue {
        let rows = try await database.query(
            "SELECT document::text FROM devices.opensense_configs ORDER BY version DESC LIMIT 1", logger: context.logger)
        for try await text in rows.decode(String.self) {
            return try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        }
        throw RPCError.internal("no OpenSense configuration is stored")
    }

    /// POST /upload: checks the parameters in the thesis' order and the MD5 of `data`, then stores each batch.
    /// A retry of the same upload (same device, same hash) answers ok and stores nothing again.
    func upload(_ input: HTTPInput, context: CallContext) async throws -> UploadResult {
        let fields = input.body.isNull ? [:] : (input.body.objectFields ?? [:])
        guard let deviceID = Self.text(fields["device_id"]) else { throw Self.error("Missing device_id parameter") }
        guard let fileHash = Self.text(fields["file_hash"]) else { throw Self.error("Missing file_hash parameter") }
        guard fileHash.count == 32 else { throw Self.error("file_hash must be exactly 32 characters") }
        guard let dataValue = fields["data"], !dataValue.isNull, dataValue != .string("") else { throw Self.error("Missing data parameter") }
        guard case .string(let data) = dataValue else {
            throw Self.error("data must be the JSON document as a string, so that its file_hash can be checked", reason: "data_not_a_string")
        }
        let digest = Hex.encode(Insecure.MD5.hash(data: Data(data.utf8)))
        guard digest == fileHash.lowercased() else { throw Self.error("Integrity check failed") }
        let batches = try Self.batches(data)

        let logger = context.logger
        try await database.withTransaction(logger: logger) { connection in
            var deviceRef: Int64?
            for try await id in try await connection.query(
                "SELECT id FROM devices.opensense_devices WHERE device_id = \(deviceID)", logger: logger
            ).decode(Int64.self) { deviceRef = id }
            guard let deviceRef else {
                throw Self.error("Unknown device_id: register the device first", reason: "device_not_registered")
            }
            var uploadID: Int64?
            for try await id in try await connection.query(
                """
                INSERT INTO devices.opensense_uploads (device_ref, file_hash, batch_count)
                VALUES (\(deviceRef), \(fileHash.lowercased()), \(batches.count))
                ON CONFLICT (device_ref, file_hash) DO NOTHING RETURNING id
                """, logger: logger
            ).decode(Int64.self) { uploadID = id }
            guard let uploadID, !batches.isEmpty else { return }  // a retry, or nothing to store
            try await connection.query(
                """
                INSERT INTO devices.opensense_batches (upload_id, device_ref, probe, datetime, recorded_at, payload)
                SELECT \(uploadID), \(deviceRef), p, d, NULLIF(r, '')::timestamptz, j::jsonb
                FROM unnest(\(batches.map(\.probe))::text[], \(batches.map(\.datetime))::text[],
                            \(batches.map(\.recordedAtText))::text[], \(batches.map(\.json))::text[]) AS b(p, d, r, j)
                """, logger: logger)
        }
        return UploadResult(status: "ok")
    }

    struct Batch {
        var probe: String
        var datetime: String
        var recordedAt: Date?
        var json: String

        /// Arrays of optional values cannot be bound, so a missing time travels as "".
        var recordedAtText: String {
            recordedAt.map { Date.ISO8601FormatStyle().format($0) } ?? ""
        }
    }

    static func batches(_ data: String) throws -> [Batch] {
        guard let parsed = try? JSONDecoder().decode(JSONValue.self, from: Data(data.utf8)), case .array(let items) = parsed else {
            throw error("data must be a JSON array of objects", reason: "data_not_an_array")
        }
        guard items.count <= maximumBatches else {
            throw error("data may hold at most \(maximumBatches) batches per upload", reason: "too_many_batches")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try items.enumerated().map { index, item in
            guard case .object(let fields) = item else {
                throw error("data must be a JSON array of objects (entry \(index) is not an object)", reason: "data_not_an_array")
            }
            guard let probe = fields["probe"]?.stringValue, !probe.isEmpty, let datetime = fields["datetime"]?.stringValue else {
                throw error("data entry \(index) lacks its probe or datetime", reason: "batch_incomplete")
            }
            // A datetime the server cannot read is kept as text; one it reads must be a plausible time.
            let recorded = recordedAt(datetime)
            if let recorded, !ClientInput.isPlausible(recorded) {
                throw error("data entry \(index) has a datetime outside 1970–2100", reason: "implausible_datetime")
            }
            return Batch(probe: probe, datetime: datetime, recordedAt: recorded, json: String(decoding: try encoder.encode(item), as: UTF8.self))
        }
    }

    /// The app writes `yyyy-MM-dd HH:mm` in the phone's zone, which it does not send; read as UTC.
    static func recordedAt(_ text: String) -> Date? {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "T" })
        guard parts.count >= 2 else { return nil }
        let date = parts[0].split(separator: "-").compactMap { Int($0) }
        let time = parts[1].prefix(8).split(separator: ":").compactMap { Int($0) }
        guard date.count == 3, time.count >= 2 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: date[0], month: date[1], day: date[2], hour: time[0], minute: time[1], second: time.count > 2 ? time[2] : 0)
        guard components.isValidDate(in: calendar) else { return nil }
        return calendar.date(from: components)
    }

    static func deviceID(_ input: HTTPInput) throws -> String {
        guard let deviceID = text(input.body.objectFields?["device_id"]) else { throw error("Missing device_id parameter") }
        guard deviceID.count <= 128, deviceID.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
            throw error("device_id must be at most 128 printable ASCII characters", reason: "invalid_device_id")
        }
        return deviceID
    }

    /// A non-empty text field (form fields are always text; JSON clients may send numbers).
    static func text(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text) where !text.isEmpty: text
        case .int(let number): String(number)
        default: nil
        }
    }

    static func error(_ message: String, reason: String = "bad_request") -> RPCError {
        RPCError.badRequest(message, reason: reason)
    }
}

extension JSONValue {
    var objectFields: [String: JSONValue]? {
        if case .object(let fields) = self { return fields }
        return nil
    }
}
