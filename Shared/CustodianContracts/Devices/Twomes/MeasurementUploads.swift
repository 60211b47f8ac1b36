import Crypto
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation

/// `POST /device/measurements/variable-interval` (docs/twomes.md, "Measurement uploads"): a device's measurements, each with its own time, read
/// with the backend's validation messages.
public struct VariableIntervalUpload: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var uploadTime: Date
    public var properties: [Property]
    /// What tells a retry of this upload: ``MeasurementUpload/digest(of:)`` of the body as it came.
    public var bodyDigest: [UInt8]

    public struct Property: Sendable, Equatable {
        public var name: String
        public var measurements: [Measurement]

        public init(name: String, measurements: [Measurement]) {
            self.name = name
            self.measurements = measurements
        }
    }

    public struct Measurement: Sendable, Equatable {
        public var timestamp: Date
        public var value: String

        public init(timestamp: Date, value: String) {
            self.timestamp = timestamp
            self.value = value
        }
    }

    public init(uploadTime: Date, properties: [Property]) {
        self.uploadTime = uploadTime
        self.properties = properties
        bodyDigest = []
        bodyDigest = MeasurementUpload.digest(of: body)
    }

    /// Every sample, in the upload's order.
    public var samples: [MeasurementUpload.Sample] {
        properties.flatMap { property in
            property.measurements.map { MeasurementUpload.Sample(property: property.name, timestamp: $0.timestamp, value: $0.value) }
        }
    }

    enum PropertyKeys: String, CodingKey { case property_name, measurements }
    enum MeasurementKeys: String, CodingKey { case timestamp, value }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        var upload = try MeasurementUpload.Reader(request)
        uploadTime = upload.uploadTime
        properties = try upload.groups(keyedBy: PropertyKeys.self).map { group in
            let name = try group.decode(String.self, forKey: .property_name)
            var items = try group.nestedUnkeyedContainer(forKey: .measurements)
            var measurements: [Measurement] = []
            while !items.isAtEnd {
                let measurement = try items.nestedObject(keyedBy: MeasurementKeys.self)
                let timestamp = try MeasurementUpload.time(measurement, .timestamp)
                measurements.append(Measurement(timestamp: timestamp, value: try MeasurementUpload.value(measurement, .value)))
            }
            return Property(name: name, measurements: measurements)
        }
        guard properties.reduce(0, { $0 + $1.measurements.count }) <= MeasurementUpload.maximumMeasurements else { throw MeasurementUpload.tooMany }
        bodyDigest = upload.digest
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(body: body).encode(to: encoder)
    }

    private var body: JSONValue {
        MeasurementUpload.body(
            uploadTime: uploadTime,
            groups: properties.map { property in
                [
                    "property_name": .string(property.name),
                    "measurements": .array(
                        property.measurements.map {
                            ["timestamp": MeasurementUpload.json($0.timestamp), "value": .string($0.value)]
                        }),
                ]
            })
    }
}

/// `POST /device/measurements/fixed-interval`: series of values at a fixed interval from (or up to) a time.
public struct FixedIntervalUpload: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var uploadTime: Date
    public var series: [Series]
    /// What tells a retry of this upload: ``MeasurementUpload/digest(of:)`` of the body as it came.
    public var bodyDigest: [UInt8]

    public struct Series: Sendable, Equatable {
        public var property: String
        /// The time of the first value (`start`) or one interval after the last (`end`).
        public var timestamp: Date
        public var timestampType: TimestampType
        public var interval: TimeInterval
        public var values: [String]

        public init(property: String, timestamp: Date, timestampType: TimestampType, interval: TimeInterval, values: [String]) {
            self.property = property
            self.timestamp = timestamp
            self.timestampType = timestampType
            self.interval = interval
            self.values = values
        }

        /// When the first value was measured.
        public var first: Date {
            timestampType == .start ? timestamp : timestamp.addingTimeInterval(-interval * Double(values.count))
        }
    }

    public enum TimestampType: String, Sendable {
        case start, end
    }

    public init(uploadTime: Date, series: [Series]) {
        self.uploadTime = uploadTime
        self.series = series
        bodyDigest = []
        bodyDigest = MeasurementUpload.digest(of: body)
    }

    /// Every sample, each series' values one interval apart.
    public var samples: [MeasurementUpload.Sample] {
        series.flatMap { series in
            series.values.enumerated().map { position, value in
                MeasurementUpload.Sample(
                    property: series.property, timestamp: series.first.addingTimeInterval(series.interval * Double(position)), value: value)
            }
        }
    }

    enum SeriesKeys: String, CodingKey { case property_name, timestamp, interval, timestamp_type, measurements }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        var upload = try MeasurementUpload.Reader(request)
        uploadTime = upload.uploadTime
        series = try upload.groups(keyedBy: SeriesKeys.self).map(Self.series)
        guard series.reduce(0, { $0 + $1.values.count }) <= MeasurementUpload.maximumMeasurements else { throw MeasurementUpload.tooMany }
        bodyDigest = upload.digest
    }

    private static func series(_ group: KeyedDecodingContainer<SeriesKeys>) throws -> Series {
        let at = RequestDecoding.location(group.codingPath)
        let property = try group.decode(String.self, forKey: .property_name)
        let timestamp = try MeasurementUpload.time(group, .timestamp)
        let interval = try TwomesTime.parseInterval(try group.requiredValue(forKey: .interval), at: at + ["interval"])
        guard let type = TimestampType(rawValue: try group.decode(String.self, forKey: .timestamp_type)) else {
            throw RPCError.validation(
                location: at + ["timestamp_type"], message: "unexpected value; permitted: 'start', 'end'", type: "value_error.const")
        }
        var items = try group.nestedUnkeyedContainer(forKey: .measurements)
        var values: [String] = []
        while !items.isAtEnd {
            let position = items.currentIndex
            values.append(try MeasurementUpload.value(items.decode(JSONValue.self), at: at + ["measurements", String(position)]))
        }
        guard values.count <= MeasurementUpload.maximumMeasurements else { throw MeasurementUpload.tooMany }
        // With no interval every sample would land on the same time, and all but one would be lost.
        guard interval > 0 || values.count <= 1 else {
            throw RPCError.validation(
                location: at + ["interval"], message: "interval must be positive when more than one measurement is sent", type: "value_error")
        }
        let series = Series(property: property, timestamp: timestamp, timestampType: type, interval: interval, values: values)
        // Both ends of the series must be plausible times too (10,000 monthly samples span 800 years).
        let last = series.first.addingTimeInterval(interval * Double(max(values.count - 1, 0)))
        guard ClientInput.isPlausible(series.first), ClientInput.isPlausible(last) else {
            throw TwomesTime.outOfRange(at: at + ["timestamp"])
        }
        return series
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(body: body).encode(to: encoder)
    }

    private var body: JSONValue {
        MeasurementUpload.body(
            uploadTime: uploadTime,
            groups: series.map { series in
                [
                    "property_name": .string(series.property), "timestamp": MeasurementUpload.json(series.timestamp),
                    "timestamp_type": .string(series.timestampType.rawValue), "interval": .double(series.interval),
                    "measurements": .array(series.values.map { .string($0) }),
                ]
            })
    }
}

/// What both upload shapes share: their limits, their first members, how a value and a retry are read.
public enum MeasurementUpload {
    /// Bounds that keep one upload small enough to store in one transaction.
    public static let maximumMeasurements = 10_000
    public static let maximumValueLength = 1024
    static let tooMany = RPCError(
        .payloadTooLarge, reason: "too_many_measurements", message: "An upload may carry at most \(maximumMeasurements) measurements")

    /// One measurement as it is stored.
    public struct Sample: Sendable, Equatable {
        public var property: String
        public var timestamp: Date
        public var value: String
    }

    /// `upload_time`, then `property_measurements` (every item an object, before any item's members are read).
    struct Reader {
        let uploadTime: Date
        private let body: JSONValue
        private var items: any UnkeyedDecodingContainer

        enum Keys: String, CodingKey { case upload_time, property_measurements }

        init(_ request: RequestReader) throws {
            body = try request.body(JSONValue.self)
            let members = try request.body(keyedBy: Keys.self)
            uploadTime = try MeasurementUpload.time(members, .upload_time)
            items = try members.nestedUnkeyedContainer(forKey: .property_measurements)
        }

        mutating func groups<Key: CodingKey>(keyedBy type: Key.Type) throws -> [KeyedDecodingContainer<Key>] {
            var groups: [KeyedDecodingContainer<Key>] = []
            while !items.isAtEnd { groups.append(try items.nestedObject(keyedBy: Key.self)) }
            return groups
        }

        var digest: [UInt8] { MeasurementUpload.digest(of: body) }
    }

    /// A time the device sent (``TwomesTime``), required.
    static func time<Key>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws -> Date {
        try TwomesTime.parse(container.requiredValue(forKey: key), at: RequestDecoding.location(container.codingPath + [key]))
    }

    static func value<Key>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws -> String {
        try value(container.decode(JSONValue.self, forKey: key), at: RequestDecoding.location(container.codingPath + [key]))
    }

    /// A measurement value is a string; numbers and booleans are taken as their text, as pydantic does. `location` is
    /// made only for an error: every sample has a value.
    static func value(_ value: JSONValue, at location: @autoclosure () -> [String]) throws -> String {
        let text: String
        switch value {
        case .string(let string): text = string
        case .int(let number): text = String(number)
        case .double(let number): text = String(number)
        case .bool(let flag): text = flag ? "True" : "False"
        case .null: throw RPCError.validation(location: location(), message: "none is not an allowed value", type: "type_error.none.not_allowed")
        default: throw RPCError.validation(location: location(), message: "str type expected", type: "type_error.str")
        }
        // Counted in code points, as Python's len counts: a "character" of a letter and 100,000 combining marks is
        // 100,001 of them, not one.
        guard text.unicodeScalars.count <= maximumValueLength else {
            throw RPCError.validation(
                location: location(), message: "ensure this value has at most \(maximumValueLength) characters",
                type: "value_error.any_str.max_length")
        }
        return text
    }

    /// SHA-256 of the body with sorted keys, so that the same upload hashes the same however its client ordered it (and
    /// as `JSONEncoder` with sorted keys wrote it when the first uploads were hashed: `/` escaped).
    public static func digest(of body: JSONValue) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        body.write(into: &bytes, escapingSlashes: true)
        return Array(SHA256.hash(data: bytes))
    }

    static func body(uploadTime: Date, groups: [JSONValue]) -> JSONValue {
        ["upload_time": json(uploadTime), "property_measurements": .array(groups)]
    }

    /// A time as devices send it: unix seconds.
    static func json(_ time: Date) -> JSONValue {
        .double(time.timeIntervalSince1970)
    }
}

public struct UploadResult: RoutedJSON, Equatable {
    public var server_time: String
    public var size: Int

    public init(server_time: String, size: Int) {
        self.server_time = server_time
        self.size = size
    }
}
