import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation

/// `POST /device` (B3): a researcher registers a prepared device, with the backend's pydantic constraints and messages.
public struct CreateDeviceRequest: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    /// `TWOMES-` and six hex digits.
    public var name: String
    public var deviceType: String
    /// The label's proof of possession, stripped; nil: the server chooses one.
    public var activationToken: String?

    public static let namePattern = "^TWOMES-[0-9a-fA-F]{6}\\z"

    public init(name: String, deviceType: String, activationToken: String? = nil) {
        self.name = name
        self.deviceType = deviceType
        self.activationToken = activationToken
    }

    enum CodingKeys: String, CodingKey { case name, device_type, activation_token }

    /// Every member first, then the checks.
    public init(from decoder: any Decoder) throws {
        let body = try RequestReader(decoder).body(keyedBy: CodingKeys.self)
        name = try body.decode(String.self, forKey: .name)
        deviceType = try body.decode(String.self, forKey: .device_type)
        let token = try body.decodeIfPresent(String.self, forKey: .activation_token)
        guard name.range(of: Self.namePattern, options: .regularExpression) != nil else {
            throw RPCError.validation(
                location: ["body", "name"], message: "string does not match regex \"TWOMES-[0-9a-fA-F]{6}\"", type: "value_error.str.regex")
        }
        activationToken = try token.map(DeviceActivation.validate)
    }

    public func encode(to encoder: any Encoder) throws {
        var body: [String: JSONValue] = ["name": .string(name), "device_type": .string(deviceType)]
        body["activation_token"] = activationToken.map { .string($0) }
        try HTTPInput(body: .object(body)).encode(to: encoder)
    }
}

/// `{"activation_token": …}` of `POST /account/device/activate` (D5) and `POST /device/activate` (E6): stripped and
/// 8–1024 characters, as the backend's `DeviceVerify` takes it.
public struct DeviceActivation: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var activationToken: String

    public init(activationToken: String) {
        self.activationToken = activationToken
    }

    enum CodingKeys: String, CodingKey { case activation_token }

    public init(from decoder: any Decoder) throws {
        let body = try RequestReader(decoder).body(keyedBy: CodingKeys.self)
        activationToken = try Self.validate(body.decode(String.self, forKey: .activation_token))
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(body: ["activation_token": .string(activationToken)]).encode(to: encoder)
    }

    static func validate(_ token: String) throws -> String {
        let stripped = token.trimmingCharacters(in: .whitespacesAndNewlines)
        guard stripped.count >= 8 else {
            throw RPCError.validation(
                location: ["body", "activation_token"], message: "ensure this value has at least 8 characters", type: "value_error.any_str.min_length"
            )
        }
        guard stripped.count <= 1024 else {
            throw RPCError.validation(
                location: ["body", "activation_token"], message: "ensure this value has at most 1024 characters",
                type: "value_error.any_str.max_length")
        }
        return stripped
    }
}

/// A device named in the path: `GET /device/{device_name}`, `GET /device_type/{device_name}`.
public struct DeviceByName: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var name: String

    public init(name: String) {
        self.name = name
    }

    public init(from decoder: any Decoder) throws {
        name = try RequestReader(decoder).path("device_name")
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(path: ["device_name": name]).encode(to: encoder)
    }
}

/// A device as the Twomes backend returns it (`DeviceItem`), optionally with its latest measurement time.
public struct DeviceItem: RoutedJSON, Equatable {
    public var id: Int64
    public var name: String
    public var device_type: DeviceTypeItem
    public var created_on: Date
    public var activated_on: Date?
    /// Only in `GET /device/{name}`; `nil` there means "no measurement yet" and is sent as null.
    public var latestMeasurement: Date??
    /// Only in the answer to `POST /device` when the server chose the activation token: the researcher's one look at it.
    public var generatedActivationToken: String?

    public init(
        id: Int64, name: String, device_type: DeviceTypeItem, created_on: Date, activated_on: Date?,
        latestMeasurement: Date?? = .none, generatedActivationToken: String? = nil
    ) {
        self.id = id
        self.name = name
        self.device_type = device_type
        self.created_on = created_on
        self.activated_on = activated_on
        self.latestMeasurement = latestMeasurement
        self.generatedActivationToken = generatedActivationToken
    }

    enum CodingKeys: String, CodingKey { case id, name, device_type, created_on, activated_on, latest_measurement_timestamp, activation_token }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(device_type, forKey: .device_type)
        try container.encode(TwomesTime.render(created_on), forKey: .created_on)
        try container.encode(activated_on.map(TwomesTime.render), forKey: .activated_on)
        if let latestMeasurement {
            try container.encode(latestMeasurement.map(TwomesTime.render), forKey: .latest_measurement_timestamp)
        }
        try container.encodeIfPresent(generatedActivationToken, forKey: .activation_token)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func time(_ text: String) throws -> Date { try TwomesTime.parse(.string(text), at: []) }
        id = try container.decode(Int64.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        device_type = try container.decode(DeviceTypeItem.self, forKey: .device_type)
        created_on = try time(container.decode(String.self, forKey: .created_on))
        activated_on = try container.decodeIfPresent(String.self, forKey: .activated_on).map(time)
        latestMeasurement =
            container.contains(.latest_measurement_timestamp)
            ? .some(try container.decodeIfPresent(String.self, forKey: .latest_measurement_timestamp).map(time)) : .none
        generatedActivationToken = try container.decodeIfPresent(String.self, forKey: .activation_token)
    }
}

/// A device type as the app shows it (`GET /device_type/{device_name}`: its installation manual).
public struct DeviceTypeItem: RoutedJSON, Equatable {
    public var name: String
    public var display_name: String
    public var installation_manual_url: String

    public init(name: String, display_name: String, installation_manual_url: String) {
        self.name = name
        self.display_name = display_name
        self.installation_manual_url = installation_manual_url
    }
}
