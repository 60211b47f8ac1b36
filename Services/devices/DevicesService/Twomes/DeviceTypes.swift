import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianRuntime
import CustodianWeb
import Foundation
import Logging
import PostgresNIO

/// Device types and the properties their devices measure, managed by researchers.
struct DeviceTypes: Sendable {
    let database: Database

    struct Property: Codable, Sendable {
        var name: String
        @ExplicitNull var unit: String?
    }

    struct DeviceType: Codable, Sendable {
        var name: String
        var display_name: String
        var installation_manual_url: String
        var properties: [Property]
    }

    struct CreateRequest: Decodable {
        var name: String
        var display_name: String
        var installation_manual_url: String?
        var properties: [Property]?
    }

    func create(_ input: HTTPInput, context: CallContext) async throws -> DeviceType {
        let request = try input.decodeBody(as: CreateRequest.self)
        let type = try Self.validated(request)
        let logger = context.logger
        try await database.withTransaction(logger: logger) { connection in
            let inserted = try await connection.query(
                """
                INSERT INTO devices.device_types (name, display_name, installation_manual_url)
                VALUES (\(type.name), \(type.display_name), \(type.installation_manual_url))
                ON CONFLICT (name) DO NOTHING RETURNING id
                """, logger: logger)
            var typeID: Int32?
            for try await id in inserted.decode(Int32.self) { typeID = id }
            guard let typeID else {
                throw RPCError(.conflict, reason: "device_type_exists", message: "Device type \(type.name) exists already")
            }
            for property in type.properties {
                try await connection.query(
                    "INSERT INTO devices.properties (device_type_id, name, unit) VALUES (\(typeID), \(property.name), \(property.unit))",
                    logger: logger)
            }
        }
        return type
    }

    func list(context: CallContext) async throws -> [String: [DeviceType]] {
        var types: [String: DeviceType] = [:]
        var order: [String] = []
        let rows = try await database.query(
            """
            SELECT t.name, t.display_name, t.installation_manual_url, p.name, p.unit
            FROM devices.device_types t LEFT JOIN devices.properties p ON p.device_type_id = t.id
            ORDER BY t.name, p.id
            """, logger: context.logger)
        for try await (name, display, manual, property, unit) in rows.decode((String, String, String, String?, String?).self) {
            if types[name] == nil {
                types[name] = DeviceType(name: name, display_name: display, installation_manual_url: manual, properties: [])
                order.append(name)
            }
            if let property { types[name]?.properties.append(Property(name: property, unit: unit)) }
        }
        return ["device_types": order.compactMap { types[$0] }]
    }

    static func validated(_ request: CreateRequest) throws -> DeviceType {
        let namePattern = "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\\z"
        guard request.name.range(of: namePattern, options: .regularExpression) != nil else {
            throw RPCError.validation(location: ["body", "name"], message: "a device type name is 1 to 64 letters, digits, '.', '_' or '-'")
        }
        guard (1...200).contains(request.display_name.count) else {
            throw RPCError.validation(location: ["body", "display_name"], message: "display_name must have 1 to 200 characters")
        }
        let manual = request.installation_manual_url ?? DefaultDeviceTypes.manualBase + request.name + "/"
        guard WebURL.isWeb(manual, maximumLength: 2000) else {
            throw RPCError.validation(location: ["body", "installation_manual_url"], message: "installation_manual_url must be an http(s) URL")
        }
        var properties = [Property(name: DefaultDeviceTypes.heartbeat, unit: nil)]
        for (index, property) in (request.properties ?? []).enumerated() {
            guard property.name.range(of: namePattern, options: .regularExpression) != nil else {
                throw RPCError.validation(location: ["body", "properties", String(index), "name"], message: "a property name is 1 to 64 letters, digits, '.', '_' or '-'")
            }
            guard (property.unit?.count ?? 0) <= 32 else {
                throw RPCError.validation(location: ["body", "properties", String(index), "unit"], message: "a unit has at most 32 characters")
            }
            guard !properties.contains(where: { $0.name == property.name }) else {
                if property.name == DefaultDeviceTypes.heartbeat { continue }  // every type has it anyway
                throw RPCError.validation(location: ["body", "properties", String(index), "name"], message: "property \(property.name) is listed twice")
            }
            properties.append(property)
        }
        guard properties.count <= 100 else {
            throw RPCError.validation(location: ["body", "properties"], message: "a device type has at most 100 properties")
        }
        return DeviceType(name: request.name, display_name: request.display_name, installation_manual_url: manual, properties: properties)
    }
}
