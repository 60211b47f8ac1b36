import CustodianContracts
import CustodianRPC
import CustodianRuntime
import Foundation
import Logging
import PostgresNIO

/// Device types and the properties their devices measure, managed by researchers.
struct DeviceTypes: Sendable {
    let database: Database

    /// A new type, as its input checked and completed it (`heartbeat` first).
    func create(_ type: DeviceTypeDefinition, context: CallContext) async throws -> DeviceTypeDefinition {
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

    func list(context: CallContext) async throws -> DeviceTypeList {
        var types: [String: DeviceTypeDefinition] = [:]
        var order: [String] = []
        let rows = try await database.query(
            """
            SELECT t.name, t.display_name, t.installation_manual_url, p.name, p.unit
            FROM devices.device_types t LEFT JOIN devices.properties p ON p.device_type_id = t.id
            ORDER BY t.name, p.id
            """, logger: context.logger)
        for try await (name, display, manual, property, unit) in rows.decode((String, String, String, String?, String?).self) {
            if types[name] == nil {
                types[name] = DeviceTypeDefinition(name: name, display_name: display, installation_manual_url: manual, properties: [])
                order.append(name)
            }
            if let property { types[name]?.properties.append(DeviceTypeDefinition.Property(name: property, unit: unit)) }
        }
        return DeviceTypeList(device_types: order.compactMap { types[$0] })
    }
}
