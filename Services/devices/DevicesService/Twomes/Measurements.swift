import Crypto
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import PostgresNIO

/// Measurement uploads from devices (docs/twomes.md, "Measurement uploads"), variable- and fixed-interval.
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
        try await store(parsed: sessionFirst(context) { try Self.variableSamples(input) }, body: input.body, context: context)
    }

    func uploadFixed(_ input: HTTPInput, context: CallContext) async throws -> UploadResult {
        try await store(parsed: sessionFirst(context) { try Self.fixedSamples(input) }, body: input.body, context: context)
    }

    /// An upload as it is stored: its samples, every property it names, and its own time.
    struct ParsedUpload {
        var samples: [Sample]
        var properties: Set<String>
        var uploadTime: Date
    }

    /// Parses the body; when it is malformed, the session is checked first, so that a stranger learns nothing about
    /// a body's checks (and a device keeps the answer order it had: 401/403 before 422).
    private func sessionFirst(_ context: CallContext, _ parse: () throws -> ParsedUpload) async throws -> ParsedUpload {
        do {
            return try parse()
        } catch {
            _ = try await sessions.device(context)
            throw error
        }
    }

    static func variableSamples(_ input: HTTPInput) throws -> ParsedUpload {
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
        guard samples.count <= Self.maximumMeasurements else { throw Self.tooMany }
        return ParsedUpload(samples: samples, properties: upload.propertyNames, uploadTime: upload.uploadTime)
    }

    static func fixedSamples(_ input: HTTPInput) throws -> ParsedUpload {
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
        guard samples.count <= Self.maximumMeasurements else { throw Self.tooMany }
        return ParsedUpload(samples: samples, properties: upload.propertyNames, uploadTime: upload.uploadTime)
    }

    /// One statement, one round trip: the session, the property names, the upload row (a retry — same device,
    /// same body — finds the first one and stores nothing) and the samples, atomically.
    private func store(parsed upload: ParsedUpload, body: JSONValue, context: CallContext) async throws -> UploadResult {
        let credential = try sessions.deviceToken(context)
        let statement = StoreUpload(
            tokenHash: SecretToken.hash(credential), propertyNames: upload.properties.sorted(),
            bodyHash: Data(SHA256.hash(data: try Self.canonical(body))), uploadTime: upload.uploadTime, size: upload.samples.count,
            sampleProperties: upload.samples.map(\.property), sampleTimes: upload.samples.map(\.timestamp), sampleValues: upload.samples.map(\.value))
        guard let (deviceID, attached, unknown, serverTime) = try await database.execute(statement, logger: context.logger).first, deviceID != nil else {
            throw Sessions.invalidDeviceToken
        }
        guard attached == true else { throw Sessions.deviceNotAttached }
        if let unknown, !unknown.isEmpty {
            // The backend prints a Python set; sorted here so that the message is stable.
            let names = unknown.map { "'\($0)'" }.joined(separator: ", ")
            throw RPCError.badRequest("Invalid property name(s): {\(names)}", reason: "invalid_property_names")
        }
        guard let serverTime else { throw RPCError.internal("upload was not stored") }
        return UploadResult(server_time: TwomesTime.render(serverTime), size: upload.samples.count)
    }

    /// The upload as one prepared statement. Checks come first in the data they produce: no device (a bad token),
    /// a device not attached, or a property its type lacks leaves every table untouched.
    struct StoreUpload: PostgresPreparedStatement {
        static let sql = """
            WITH device AS (
                SELECT id, device_type_id, building_id FROM devices.devices WHERE session_token_hash = $1),
            known AS (
                SELECT p.id, p.name FROM devices.properties p JOIN device d ON p.device_type_id = d.device_type_id),
            unknown AS (
                SELECT array_agg(DISTINCT n ORDER BY n) AS names FROM unnest($2::text[]) AS n WHERE n NOT IN (SELECT name FROM known)),
            upload AS (
                INSERT INTO devices.uploads (device_id, body_sha256, server_time, device_time, size)
                SELECT d.id, $3, date_trunc('second', now()), $4, $5 FROM device d
                WHERE d.building_id IS NOT NULL AND (SELECT names FROM unknown) IS NULL
                ON CONFLICT (device_id, body_sha256) DO UPDATE SET size = devices.uploads.size
                RETURNING id, server_time, (xmax = 0) AS fresh),
            stored AS (
                INSERT INTO devices.measurements (device_id, property_id, timestamp, value, upload_id)
                SELECT d.id, k.id, s.t, s.v, u.id
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

    /// The body with sorted keys, so that the same upload hashes the same however its client ordered it (and as
    /// `JSONEncoder` with sorted keys wrote it when the first uploads were hashed).
    static func canonical(_ body: JSONValue) throws -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        body.write(into: &bytes, escapingSlashes: true)
        return Data(bytes)
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
