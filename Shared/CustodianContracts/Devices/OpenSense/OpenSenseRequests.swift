import Crypto
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianSecurity
import Foundation

/// `POST /register` (docs/opensense.md, "POST /register"): a new device asks for its storage key.
public struct OpenSenseRegistration: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .openSense }

    /// At most 128 printable ASCII characters.
    public var deviceID: String

    public init(deviceID: String) {
        self.deviceID = deviceID
    }

    enum CodingKeys: String, CodingKey { case device_id }

    public init(from decoder: any Decoder) throws {
        let fields = try OpenSenseForm.fields(decoder, keyedBy: CodingKeys.self)
        guard let deviceID = try fields?.openSenseText(forKey: .device_id) else { throw OpenSenseForm.error("Missing device_id parameter") }
        guard deviceID.count <= 128, deviceID.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
            throw OpenSenseForm.error("device_id must be at most 128 printable ASCII characters", reason: "invalid_device_id")
        }
        self.deviceID = deviceID
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(body: ["device_id": .string(deviceID)]).encode(to: encoder)
    }
}

/// `POST /upload` (docs/opensense.md, "POST /upload"): a batch file whose MD5 the app sends beside it, checked in the thesis' order.
public struct OpenSenseUpload: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .openSense }

    public var deviceID: String
    /// The MD5 of `data`, lower-case hex: with the device, what tells a retry of the same upload.
    public var fileHash: String
    public var batches: [Batch]

    /// One probe's readings as the app stored them.
    public struct Batch: Sendable, Equatable {
        public var probe: String
        /// As the app wrote it.
        public var datetime: String
        /// `datetime` read as a time, when it can be.
        public var recordedAt: Date?
        /// The batch's JSON, keys sorted.
        public var json: String
    }

    public static let maximumBatches = 10_000

    enum CodingKeys: String, CodingKey { case device_id, file_hash, data }

    public init(from decoder: any Decoder) throws {
        let fields = try OpenSenseForm.fields(decoder, keyedBy: CodingKeys.self)
        guard let deviceID = try fields?.openSenseText(forKey: .device_id) else { throw OpenSenseForm.error("Missing device_id parameter") }
        guard let fileHash = try fields?.openSenseText(forKey: .file_hash) else { throw OpenSenseForm.error("Missing file_hash parameter") }
        guard fileHash.count == 32 else { throw OpenSenseForm.error("file_hash must be exactly 32 characters") }
        guard let dataValue = try fields?.decodeIfPresent(JSONValue.self, forKey: .data), dataValue != .string("") else {
            throw OpenSenseForm.error("Missing data parameter")
        }
        guard case .string(let data) = dataValue else {
            throw OpenSenseForm.error("data must be the JSON document as a string, so that its file_hash can be checked", reason: "data_not_a_string")
        }
        guard Hex.encode(Insecure.MD5.hash(data: Data(data.utf8))) == fileHash.lowercased() else {
            throw OpenSenseForm.error("Integrity check failed")
        }
        self.deviceID = deviceID
        self.fileHash = fileHash.lowercased()
        batches = try Self.batches(data)
    }

    /// Written as the app posts it: the batches (keys sorted) as a JSON array in `data`, and the hash of that text.
    public func encode(to encoder: any Encoder) throws {
        let data = "[" + batches.map(\.json).joined(separator: ",") + "]"
        try HTTPInput(body: [
            "device_id": .string(deviceID), "file_hash": .string(Hex.encode(Insecure.MD5.hash(data: Data(data.utf8)))),
            "data": .string(data),
        ]).encode(to: encoder)
    }

    static func batches(_ data: String) throws -> [Batch] {
        guard let parsed = try? JSONDecoder().decode(JSONValue.self, from: Data(data.utf8)), case .array(let items) = parsed else {
            throw OpenSenseForm.error("data must be a JSON array of objects", reason: "data_not_an_array")
        }
        guard items.count <= maximumBatches else {
            throw OpenSenseForm.error("data may hold at most \(maximumBatches) batches per upload", reason: "too_many_batches")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try items.enumerated().map { index, item in
            guard case .object(let fields) = item else {
                throw OpenSenseForm.error("data must be a JSON array of objects (entry \(index) is not an object)", reason: "data_not_an_array")
            }
            guard let probe = fields["probe"]?.stringValue, !probe.isEmpty, let datetime = fields["datetime"]?.stringValue else {
                throw OpenSenseForm.error("data entry \(index) lacks its probe or datetime", reason: "batch_incomplete")
            }
            // A datetime the server cannot read is kept as text; one it reads must be a plausible time.
            let recorded = recordedAt(datetime)
            if let recorded, !ClientInput.isPlausible(recorded) {
                throw OpenSenseForm.error("data entry \(index) has a datetime outside 1970–2100", reason: "implausible_datetime")
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
        let components = DateComponents(
            year: date[0], month: date[1], day: date[2], hour: time[0], minute: time[1], second: time.count > 2 ? time[2] : 0)
        guard components.isValidDate(in: calendar) else { return nil }
        return calendar.date(from: components)
    }
}

/// An OpenSense form (or JSON body): its fields, checked one by one in the thesis' order and words.
enum OpenSenseForm {
    /// The body's fields; nil for a body that is not an object (no form at all), whose every field is missing.
    static func fields<Key: CodingKey>(_ decoder: any Decoder, keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key>? {
        let request = try RequestReader(decoder)
        guard case .object = try request.body(JSONValue.self) else { return nil }
        return try request.body(keyedBy: Key.self)
    }

    static func error(_ message: String, reason: String = "bad_request") -> RPCError {
        RPCError.badRequest(message, reason: reason)
    }
}

public struct OpenSenseKey: RoutedJSON, Equatable {
    public var key: String

    public init(key: String) {
        self.key = key
    }
}

public struct OpenSenseUploadStatus: RoutedJSON, Equatable {
    public var status: String

    public init(status: String) {
        self.status = status
    }
}
