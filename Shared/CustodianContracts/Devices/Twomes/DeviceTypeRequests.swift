import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianWeb

/// A device type and the properties its devices measure, as researchers define them (`/admin/v1/device-types`).
public struct DeviceTypeDefinition: RoutedJSON, Equatable {
    public var name: String
    public var display_name: String
    public var installation_manual_url: String
    public var properties: [Property]

    public struct Property: Codable, Sendable, Equatable {
        public var name: String
        @ExplicitNull public var unit: String?

        public init(name: String, unit: String?) {
            self.name = name
            self.unit = unit
        }
    }

    /// Every type measures `heartbeat` (docs/twomes.md, "Provisioning steps", E9b).
    public static let heartbeat = "heartbeat"
    /// Where a type's installation manual is unless its definition says otherwise: this, its name and `/`.
    public static let manualBase = "https://energietransitiewindesheim.nl/manuals/"

    public init(name: String, display_name: String, installation_manual_url: String, properties: [Property]) {
        self.name = name
        self.display_name = display_name
        self.installation_manual_url = installation_manual_url
        self.properties = properties
    }
}

public struct DeviceTypeList: RoutedJSON, Equatable {
    public var device_types: [DeviceTypeDefinition]

    public init(device_types: [DeviceTypeDefinition]) {
        self.device_types = device_types
    }
}

/// `POST /admin/v1/device-types`: a new type as it is stored, its manual's URL defaulted and `heartbeat` first.
public struct CreateDeviceTypeRequest: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var definition: DeviceTypeDefinition

    public init(definition: DeviceTypeDefinition) {
        self.definition = definition
    }

    enum CodingKeys: String, CodingKey { case name, display_name, installation_manual_url, properties }

    /// Every member first, then the checks.
    public init(from decoder: any Decoder) throws {
        let body = try RequestReader(decoder).body(keyedBy: CodingKeys.self)
        let name = try body.decode(String.self, forKey: .name)
        let displayName = try body.decode(String.self, forKey: .display_name)
        let manual = try body.decodeIfPresent(String.self, forKey: .installation_manual_url)
        let listed = try body.decodeIfPresent([DeviceTypeDefinition.Property].self, forKey: .properties)

        let namePattern = "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\\z"
        guard name.range(of: namePattern, options: .regularExpression) != nil else {
            throw RPCError.validation(location: ["body", "name"], message: "a device type name is 1 to 64 letters, digits, '.', '_' or '-'")
        }
        guard (1...200).contains(displayName.count) else {
            throw RPCError.validation(location: ["body", "display_name"], message: "display_name must have 1 to 200 characters")
        }
        let manualURL = manual ?? DeviceTypeDefinition.manualBase + name + "/"
        guard WebURL.isWeb(manualURL, maximumLength: 2000) else {
            throw RPCError.validation(location: ["body", "installation_manual_url"], message: "installation_manual_url must be an http(s) URL")
        }
        var properties = [DeviceTypeDefinition.Property(name: DeviceTypeDefinition.heartbeat, unit: nil)]
        for (index, property) in (listed ?? []).enumerated() {
            guard property.name.range(of: namePattern, options: .regularExpression) != nil else {
                throw RPCError.validation(
                    location: ["body", "properties", String(index), "name"], message: "a property name is 1 to 64 letters, digits, '.', '_' or '-'")
            }
            guard (property.unit?.count ?? 0) <= 32 else {
                throw RPCError.validation(location: ["body", "properties", String(index), "unit"], message: "a unit has at most 32 characters")
            }
            guard !properties.contains(where: { $0.name == property.name }) else {
                if property.name == DeviceTypeDefinition.heartbeat { continue }  // every type has it anyway
                throw RPCError.validation(
                    location: ["body", "properties", String(index), "name"], message: "property \(property.name) is listed twice")
            }
            properties.append(property)
        }
        guard properties.count <= 100 else {
            throw RPCError.validation(location: ["body", "properties"], message: "a device type has at most 100 properties")
        }
        definition = DeviceTypeDefinition(name: name, display_name: displayName, installation_manual_url: manualURL, properties: properties)
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(body: JSONValueEncoder().encode(definition)).encode(to: encoder)
    }
}
