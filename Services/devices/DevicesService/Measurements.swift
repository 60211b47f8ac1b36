import Crypto
import CustodianRPC
import CustodianRuntime
import Foundation
import Logging
import PostgresNIO

/// Measurement uploads from devices (seed 004, E9), variable- and fixed-interval.
struct Measurements: Sendable {
    let database: Database
    let sessions: Sessions

    /// Bounds that keep one upload small enough to store in one transaction.
    static let maximumMeasurements = 10_000
    static let maximumValueLength = 1024
    static let tooMany = RPCError(.payloadTooLarge, reason: "too_many_measurements", message: "An upload may carry at most \(maximumMeasurements) measurements")

    struct Sample {
        var property: String
        var timestamp: Date
        var value: String
    }

    func uploadVariable(_ input: HTTPInput, context: CallContext) async throws -> UploadResult {
        let device = try await sessions.device(context)
        let upload = try UploadBody(input.body)
        var samples: [Sample] = []
        for (index, group) in upload.propertyMeasurements.enumerated() {
            let location = ["body", "property_measurements", String(index)]
            let property = try group.string("property_name", at: location)
            for (position, value) in try group.array("measurements", at: location).enumerated() {
                let at = location + ["measurements", String(position)]
                let measurement = try JSONObject(value, at: at)
                samples.append(Sample(
                    property: property,
                    timestamp: try TwomesTime.parse(try measurement.required("timestamp", at: at), at: at + ["timestamp"]),
                    value: try UploadBody.value(try measurement.required("value", at: at), at: at + ["value"])))
            }
        }
        return try await store(samples, properties: upload.propertyNames, uploadTime: upload.uploadTime, body: input.body, device: device, logger: context.logger)
    }

    func uploadFixed(_ input: HTTPInput, context: CallContext) async throws -> UploadResult {
        let device = try await sessions.device(context)
        let upload = try UploadBody(input.body)
        var samples: [Sample] = []
        for (index, group) in upload.propertyMeasurements.enumerated() {
            let location = ["body", "property_measurements", String(index)]
            let property = try group.string("property_name", at: location)
            let timestamp = try TwomesTime.parse(try group.required("timestamp", at: location), at: location + ["timestamp"])
            let interval = try TwomesTime.parseInterval(try group.required("interval", at: location), at: location + ["interval"])
            let type = try group.string("timestamp_type", at: location)
            guard type == "start" || type == "end" else {
                throw RPCError.validation(location: location + ["timestamp_type"], message: "unexpected value; permitted: 'start', 'end'", type: "value_error.const")
            }
            let values = try group.array("measurements", at: location).enumerated().map { position, value in
                try UploadBody.value(value, at: location + ["measurements", String(position)])
            }
            guard values.count <= Self.maximumMeasurements else { throw Self.tooMany }
            // With no interval every sample would land on the same time, and all but one would be lost.
            guard interval > 0 || values.count <= 1 else {
                throw RPCError.validation(location: location + ["interval"], message: "interval must be positive when more than one measurement is sent", type: "value_error")
            }
            // `start`: the first sample at `timestamp`; `end`: the last one at `timestamp - interval`. Both ends of the
            // series must be plausible times too (10,000 monthly samples span 800 years).
            let first = type == "start" ? timestamp : timestamp.addingTimeInterval(-interval * Double(values.count))
            let last = first.addingTimeInterval(interval * Double(max(values.count - 1, 0)))
            guard ClientInput.isPlausible(first), ClientInput.isPlausible(last) else {
                throw TwomesTime.outOfRange(at: location + ["timestamp"])
            }
            for (position, value) in values.enumerated() {
                samples.append(Sample(property: property, timestamp: first.addingTimeInterval(interval * Double(position)), value: value))
            }
        }
        return try await store(samples, properties: upload.propertyNames, uploadTime: upload.uploadTime, body: input.body, device: device, logger: context.logger)
    }

    private func store(_ samples: [Sample], properties named: Set<String>, uploadTime: Date, body: JSONValue, device: Sessions.Device, logger: Logger) async throws -> UploadResult {
        guard samples.count <= Self.maximumMeasurements else { throw Self.tooMany }
        let bodyHash = Data(SHA256.hash(data: try Self.canonical(body)))
        let size = samples.count
        return try await database.withTransaction(logger: logger) { connection in
            let properties = try await propertyIDs(connection, deviceTypeID: device.deviceTypeID, logger: logger)
            let unknown = named.subtracting(properties.keys)
            guard unknown.isEmpty else {
                // The backend prints a Python set; sorted here so that the message is stable.
                let names = unknown.sorted().map { "'\($0)'" }.joined(separator: ", ")
                throw RPCError.badRequest("Invalid property name(s): {\(names)}", reason: "invalid_property_names")
            }
            // A retried upload (same device, same body) gets the first answer and stores nothing.
            let uploadRows = try await connection.query(
                """
                INSERT INTO devices.uploads (device_id, body_sha256, server_time, device_time, size)
                VALUES (\(device.id), \(bodyHash), date_trunc('second', now()), \(uploadTime), \(size))
                ON CONFLICT (device_id, body_sha256) DO UPDATE SET size = devices.uploads.size
                RETURNING id, server_time, (xmax = 0)
                """, logger: logger)
            var upload: (id: Int64, serverTime: Date, isNew: Bool)?
            for try await row in uploadRows.decode((Int64, Date, Bool).self) { upload = row }
            guard let upload else { throw RPCError.internal("upload was not stored") }
            if upload.isNew && !samples.isEmpty {
                try await insert(samples, uploadID: upload.id, deviceID: device.id, properties: properties, connection: connection, logger: logger)
            }
            return UploadResult(server_time: TwomesTime.render(upload.serverTime), size: size)
        }
    }

    private func propertyIDs(_ connection: PostgresConnection, deviceTypeID: Int32, logger: Logger) async throws -> [String: Int32] {
        var ids: [String: Int32] = [:]
        for try await (id, name) in try await connection.query(
            "SELECT id, name FROM devices.properties WHERE device_type_id = \(deviceTypeID)", logger: logger
        ).decode((Int32, String).self) { ids[name] = id }
        return ids
    }

    /// One statement per upload: the samples travel as arrays and are unnested on the server.
    /// The same measurement sent again in another upload (same property and time) is kept once.
    private func insert(_ samples: [Sample], uploadID: Int64, deviceID: Int64, properties: [String: Int32],
                        connection: PostgresConnection, logger: Logger) async throws {
        let propertyIDs = samples.map { properties[$0.property]! }
        let timestamps = samples.map(\.timestamp)
        let values = samples.map(\.value)
        try await connection.query(
            """
            INSERT INTO devices.measurements (device_id, property_id, timestamp, value, upload_id)
            SELECT \(deviceID), p, t, v, \(uploadID) FROM unnest(\(propertyIDs)::integer[], \(timestamps)::timestamptz[], \(values)::text[]) AS u(p, t, v)
            ON CONFLICT (device_id, property_id, timestamp) DO NOTHING
            """, logger: logger)
    }

    /// The body with sorted keys, so that the same upload hashes the same however its client ordered it.
    static func canonical(_ body: JSONValue) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(body)
    }
}

/// The fields both upload shapes share, read from the JSON with the backend's validation messages.
struct UploadBody {
    var uploadTime: Date
    var propertyMeasurements: [JSONObject]

    /// Every property the upload names, with or without measurements.
    var propertyNames: Set<String> {
        Set(propertyMeasurements.compactMap { $0.fields["property_name"]?.stringValue })
    }

    init(_ body: JSONValue) throws {
        let root = try JSONObject(body, at: ["body"])
        uploadTime = try TwomesTime.parse(try root.required("upload_time", at: ["body"]), at: ["body", "upload_time"])
        propertyMeasurements = try root.array("property_measurements", at: ["body"]).enumerated().map { index, value in
            try JSONObject(value, at: ["body", "property_measurements", String(index)])
        }
    }

    /// A measurement value is a string; numbers and booleans are taken as their text, as pydantic does.
    static func value(_ value: JSONValue, at location: [String]) throws -> String {
        let text: String
        switch value {
        case .string(let string): text = string
        case .int(let number): text = String(number)
        case .double(let number): text = String(number)
        case .bool(let flag): text = flag ? "True" : "False"
        case .null: throw RPCError.validation(location: location, message: "none is not an allowed value", type: "type_error.none.not_allowed")
        default: throw RPCError.validation(location: location, message: "str type expected", type: "type_error.str")
        }
        // Counted in code points, as Python's len counts: a "character" of a letter and 100,000 combining marks is
        // 100,001 of them, not one.
        guard text.unicodeScalars.count <= Measurements.maximumValueLength else {
            throw RPCError.validation(location: location, message: "ensure this value has at most \(Measurements.maximumValueLength) characters", type: "value_error.any_str.max_length")
        }
        return text
    }
}

/// A JSON object with field accessors that report FastAPI-style validation errors at the right location.
struct JSONObject {
    let fields: [String: JSONValue]
    let location: [String]

    init(_ value: JSONValue, at location: [String]) throws {
        guard case .object(let fields) = value else {
            if value.isNull, location == ["body"] {
                throw RPCError.validation(location: location, message: "field required", type: "value_error.missing")
            }
            throw RPCError.validation(location: location, message: "value is not a valid dict", type: "type_error.dict")
        }
        self.fields = fields
        self.location = location
    }

    func required(_ key: String, at location: [String]) throws -> JSONValue {
        guard let value = fields[key] else {
            throw RPCError.validation(location: location + [key], message: "field required", type: "value_error.missing")
        }
        guard !value.isNull else {
            throw RPCError.validation(location: location + [key], message: "none is not an allowed value", type: "type_error.none.not_allowed")
        }
        return value
    }

    func string(_ key: String, at location: [String]) throws -> String {
        guard case .string(let text) = try required(key, at: location) else {
            throw RPCError.validation(location: location + [key], message: "str type expected", type: "type_error.str")
        }
        return text
    }

    func array(_ key: String, at location: [String]) throws -> [JSONValue] {
        guard case .array(let items) = try required(key, at: location) else {
            throw RPCError.validation(location: location + [key], message: "value is not a valid list", type: "type_error.list")
        }
        return items
    }
}
