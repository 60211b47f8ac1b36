import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianWeb

/// The configuration document every app reads from `GET /config` (docs/opensense.md, "GET /config"): only its keys, each of its type.
public struct OpenSenseConfiguration: RoutedJSON, Equatable {
    public var name: String
    /// Numbered by the server: each published document gets the next.
    public var version: Int
    public var dataUploadOnWifiOnly: Bool
    public var baseUrl: String
    public var configUpdatePeriod: Int64
    public var dataArchivePeriod: Int64
    public var dataUploadPeriod: Int64
    public var maxDataFileSizeKb: Int64
    /// Per probe, what the app is asked to record: objects with an `interval`, and whatever else a probe reads, which
    /// the server passes on as it is.
    public var dataRequests: [String: [JSONValue]]

    public init(
        name: String, version: Int, dataUploadOnWifiOnly: Bool, baseUrl: String, configUpdatePeriod: Int64, dataArchivePeriod: Int64,
        dataUploadPeriod: Int64, maxDataFileSizeKb: Int64, dataRequests: [String: [JSONValue]]
    ) {
        self.name = name
        self.version = version
        self.dataUploadOnWifiOnly = dataUploadOnWifiOnly
        self.baseUrl = baseUrl
        self.configUpdatePeriod = configUpdatePeriod
        self.dataArchivePeriod = dataArchivePeriod
        self.dataUploadPeriod = dataUploadPeriod
        self.maxDataFileSizeKb = maxDataFileSizeKb
        self.dataRequests = dataRequests
    }
}

/// `PUT /admin/v1/opensense/config`: a new configuration document, checked key by key with the admin API's messages.
/// Its `version` is the server's to give, whatever the document says.
public struct OpenSenseConfigurationUpdate: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    /// The document, its `version` still to be given.
    public var configuration: OpenSenseConfiguration

    public init(configuration: OpenSenseConfiguration) {
        self.configuration = configuration
    }

    static let keys: Set<String> = [
        "name", "version", "dataUploadOnWifiOnly", "baseUrl", "configUpdatePeriod", "dataArchivePeriod",
        "dataUploadPeriod", "maxDataFileSizeKb", "dataRequests",
    ]

    /// A document of the configuration's keys only (docs/opensense.md, "GET /config"); a check of each in the order an operator reads the errors.
    public init(from decoder: any Decoder) throws {
        guard case .object(let fields) = try RequestReader(decoder).body(JSONValue.self) else {
            throw RPCError.validation(location: ["body"], message: "the configuration must be a JSON object")
        }
        let unknown = Set(fields.keys).subtracting(Self.keys).sorted()
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
        guard case .bool(let wifiOnly) = try require("dataUploadOnWifiOnly") else {
            throw RPCError.validation(location: ["body", "dataUploadOnWifiOnly"], message: "dataUploadOnWifiOnly must be true or false")
        }
        var periods: [String: Int64] = [:]
        for key in ["configUpdatePeriod", "dataArchivePeriod", "dataUploadPeriod", "maxDataFileSizeKb"] {
            guard case .int(let number) = try require(key), number > 0, number <= 31_536_000 else {
                throw RPCError.validation(location: ["body", key], message: "\(key) must be a positive whole number")
            }
            periods[key] = number
        }
        guard case .object(let requests) = try require("dataRequests") else {
            throw RPCError.validation(location: ["body", "dataRequests"], message: "dataRequests must map probe names to lists of requests")
        }
        var dataRequests: [String: [JSONValue]] = [:]
        for (probe, list) in requests {
            guard case .array(let items) = list,
                items.allSatisfy({
                    guard case .object(let request) = $0, case .int(let interval)? = request["interval"] else { return false }
                    return interval >= -1
                })
            else {
                throw RPCError.validation(
                    location: ["body", "dataRequests", probe],
                    message: "each request of \(probe) must be an object with a whole-number interval of -1 or more")
            }
            dataRequests[probe] = items
        }
        configuration = OpenSenseConfiguration(
            name: name, version: 0, dataUploadOnWifiOnly: wifiOnly, baseUrl: baseURL, configUpdatePeriod: periods["configUpdatePeriod"] ?? 0,
            dataArchivePeriod: periods["dataArchivePeriod"] ?? 0, dataUploadPeriod: periods["dataUploadPeriod"] ?? 0,
            maxDataFileSizeKb: periods["maxDataFileSizeKb"] ?? 0, dataRequests: dataRequests)
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(body: JSONValueEncoder().encode(configuration)).encode(to: encoder)
    }
}

/// An OpenSense device named in the path: `GET /admin/v1/opensense/devices/{device_id}/key`.
public struct OpenSenseDeviceByID: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var deviceID: String

    public init(deviceID: String) {
        self.deviceID = deviceID
    }

    public init(from decoder: any Decoder) throws {
        deviceID = try RequestReader(decoder).path("device_id")
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(path: ["device_id": deviceID]).encode(to: encoder)
    }
}

/// A device's storage key, recovered for a researcher who decrypts data taken from a phone.
public struct RecoveredOpenSenseKey: RoutedJSON, Equatable {
    public var device_id: String
    public var key: String

    public init(device_id: String, key: String) {
        self.device_id = device_id
        self.key = key
    }
}
