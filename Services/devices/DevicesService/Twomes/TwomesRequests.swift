import CustodianHTTP
import CustodianRPC
import CustodianSecurity
import Foundation

/// A device as the Twomes backend returns it (`DeviceItem`), optionally with its latest measurement time.
struct DeviceItem: Encodable, Sendable {
    var id: Int64
    var name: String
    var device_type: DeviceTypeItem
    var created_on: Date
    var activated_on: Date?
    /// Only in `GET /device/{name}`; `nil` there means "no measurement yet" and is sent as null.
    var latestMeasurement: Date??
    /// Only in the answer to `POST /device` when the server chose the activation token: the researcher's one look at it.
    var generatedActivationToken: String?

    enum CodingKeys: String, CodingKey { case id, name, device_type, created_on, activated_on, latest_measurement_timestamp, activation_token }

    func encode(to encoder: any Encoder) throws {
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
}

struct DeviceTypeItem: Codable, Sendable {
    var name: String
    var display_name: String
    var installation_manual_url: String
}

struct CreateDeviceRequest: Decodable {
    var name: String
    var device_type: String
    /// The label's proof of possession; when the researcher leaves it out, the server chooses one.
    var activation_token: String?

    static let namePattern = "^TWOMES-[0-9a-fA-F]{6}\\z"

    /// The backend's pydantic constraints, with its messages.
    func validated() throws -> CreateDeviceRequest {
        guard name.range(of: Self.namePattern, options: .regularExpression) != nil else {
            throw RPCError.validation(location: ["body", "name"], message: "string does not match regex \"TWOMES-[0-9a-fA-F]{6}\"", type: "value_error.str.regex")
        }
        var copy = self
        copy.activation_token = try activation_token.map(ActivationTokenInput.validate)
        return copy
    }

    /// A token the server chooses: 128 bits from the system CSPRNG (22 characters, short enough for a QR label).
    static func generateActivationToken() -> String {
        SecretToken.generate(byteCount: 16)
    }
}

/// `{"activation_token": …}`, stripped and 8–1024 characters as the backend's `DeviceVerify` takes it.
struct ActivationTokenInput: Decodable {
    var activation_token: String

    static func validate(_ token: String) throws -> String {
        let stripped = token.trimmingCharacters(in: .whitespacesAndNewlines)
        guard stripped.count >= 8 else {
            throw RPCError.validation(location: ["body", "activation_token"], message: "ensure this value has at least 8 characters", type: "value_error.any_str.min_length")
        }
        guard stripped.count <= 1024 else {
            throw RPCError.validation(location: ["body", "activation_token"], message: "ensure this value has at most 1024 characters", type: "value_error.any_str.max_length")
        }
        return stripped
    }
}

struct DeviceSession: Codable, Sendable {
    var session_token: String
}

struct UploadResult: Codable, Sendable {
    var server_time: String
    var size: Int
}
