import CustodianContracts
import CustodianHTTP
import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import PostgresNIO

/// The QR label of a prepared device (docs/admin.md, "Device labels"), one at a time as an image or as a printable sheet.
/// The payload carries the device's activation token, so only admins get labels.
struct DeviceLabels: Sendable {
    let database: Database
    let services: RPCClient
    let sealer: Sealer

    /// `GET /admin/v1/devices/{device_name}/label?format=png|svg&transport=ble|softap&ec=M&size=8`
    func label(_ input: HTTPInput, context: CallContext) async throws -> RawHTTPReply {
        let name = input.path["device_name"] ?? ""
        let transport = try Self.transport(input)
        let format = try input.singleQueryValue("format").map { text -> QRRenderInput.Format in
            guard let format = QRRenderInput.Format(rawValue: text) else {
                throw RPCError.badRequest("format must be png or svg", reason: "invalid_format")
            }
            return format
        } ?? .png
        let level = try Self.errorCorrection(input)
        let size = try input.singleQueryValue("size").map { text -> Int in
            guard let size = Int(text), QRRenderInput.moduleSizes.contains(size) else {
                throw RPCError.badRequest("size must be from 1 to 64 pixels per module", reason: "invalid_module_size")
            }
            return size
        } ?? QRRenderInput.defaultModuleSize
        guard let device = try await devices(named: [name], logger: context.logger).first else {
            throw RPCError.notFound("Device \(name) not found", reason: "device_not_found")
        }
        let render = QRRenderInput(payload: try payload(device, transport: transport), format: format, errorCorrection: level, moduleSize: size)
        return try await services.call(LinksMethods.qrRender, input: render, context: context)
    }

    /// `GET /admin/v1/device-labels?name=TWOMES-…&name=…&transport=ble`, or `?unprinted=true` for every device whose
    /// label has not been on a sheet yet: a printable page of labels. The devices count as printed from then on.
    func sheet(_ input: HTTPInput, context: CallContext) async throws -> RawHTTPReply {
        let names: [String]
        switch try input.singleQueryValue("unprinted") {
        case nil, "false":
            names = input.query["name"] ?? []
        case "true":
            guard input.query["name"] == nil else {
                throw RPCError.badRequest("name devices or ask for the unprinted ones, not both", reason: "invalid_query")
            }
            names = try await unprinted(logger: context.logger)
            guard !names.isEmpty else { throw RPCError.notFound("Every device's label has been printed", reason: "no_unprinted_devices") }
        default:
            throw RPCError.badRequest("unprinted must be true or false", reason: "invalid_query")
        }
        guard !names.isEmpty else { throw RPCError.badRequest("name at least one device (name=TWOMES-…)", reason: "no_devices") }
        guard names.count <= LabelSheetInput.maximumLabels else {
            throw RPCError.badRequest("a label sheet holds at most \(LabelSheetInput.maximumLabels) devices", reason: "too_many_labels")
        }
        let transport = try Self.transport(input)
        let found = try await devices(named: names, logger: context.logger)
        let missing = Set(names).subtracting(found.map(\.name)).sorted()
        guard missing.isEmpty else {
            throw RPCError.notFound("Unknown device(s): \(missing.joined(separator: ", "))", reason: "device_not_found")
        }
        let byName = Dictionary(uniqueKeysWithValues: found.map { ($0.name, $0) })
        let labels = try names.map { name -> LabelSheetInput.Label in
            let device = byName[name]!
            return LabelSheetInput.Label(payload: try payload(device, transport: transport), title: device.name, subtitle: device.typeDisplayName)
        }
        let sheet = LabelSheetInput(labels: labels, errorCorrection: try Self.errorCorrection(input))
        let page = try await services.call(LinksMethods.labelsSheet, input: sheet, context: context)
        try await database.query("UPDATE devices.devices SET label_printed_on = now() WHERE name = ANY(\(names))", logger: context.logger)
        return page
    }

    /// The devices not on a sheet yet whose label can be made, oldest first, as many as a sheet holds.
    private func unprinted(logger: Logger) async throws -> [String] {
        let rows = try await database.query(
            """
            SELECT name FROM devices.devices WHERE label_printed_on IS NULL AND activation_token_sealed IS NOT NULL
            ORDER BY created_on, name LIMIT \(LabelSheetInput.maximumLabels)
            """, logger: logger)
        var names: [String] = []
        for try await name in rows.decode(String.self) { names.append(name) }
        return names
    }

    struct Device {
        var name: String
        var typeDisplayName: String
        var sealedToken: Data?
    }

    private func devices(named names: [String], logger: Logger) async throws -> [Device] {
        let rows = try await database.query(
            """
            SELECT d.name, t.display_name, d.activation_token_sealed
            FROM devices.devices d JOIN devices.device_types t ON t.id = d.device_type_id
            WHERE d.name = ANY(\(names))
            """, logger: logger)
        var devices: [Device] = []
        for try await (name, display, sealed) in rows.decode((String, String, Data?).self) {
            devices.append(Device(name: name, typeDisplayName: display, sealedToken: sealed))
        }
        return devices
    }

    private func payload(_ device: Device, transport: ProvisioningPayload.Transport) throws -> String {
        // Devices registered before tokens were sealed have only the hash: their label cannot be remade.
        guard let sealed = device.sealedToken else {
            throw RPCError(.conflict, reason: "token_not_recoverable", message: "The activation token of \(device.name) was stored before labels were supported; register the device again")
        }
        let token = try sealer.open(sealed, context: TwomesDevices.sealingContext(device.name))
        return ProvisioningPayload.text(name: device.name, pop: token, transport: transport)
    }

    private static func transport(_ input: HTTPInput) throws -> ProvisioningPayload.Transport {
        guard let text = try input.singleQueryValue("transport") else { return .ble }
        guard let transport = ProvisioningPayload.Transport(rawValue: text) else {
            throw RPCError.badRequest("transport must be ble or softap", reason: "invalid_transport")
        }
        return transport
    }

    private static func errorCorrection(_ input: HTTPInput) throws -> QRErrorCorrection {
        guard let text = try input.singleQueryValue("ec") else { return .M }
        guard let level = QRErrorCorrection(rawValue: text) else {
            throw RPCError.badRequest("ec must be L, M, Q or H", reason: "invalid_error_correction")
        }
        return level
    }
}
