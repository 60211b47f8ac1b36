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

    /// `GET /admin/v1/devices/{device_name}/label`: the image `links` draws of the device's label.
    func label(_ request: DeviceLabelRequest, context: CallContext) async throws -> RawHTTPReply {
        guard let device = try await devices(named: [request.name], logger: context.logger).first else {
            throw RPCError.notFound("Device \(request.name) not found", reason: "device_not_found")
        }
        let render = QRRenderInput(
            payload: try payload(device, transport: request.transport), format: request.format, errorCorrection: request.errorCorrection,
            moduleSize: request.size)
        return try await services.call(LinksMethods.qrRender, input: render, context: context)
    }

    /// `GET /admin/v1/device-labels`: a printable page of labels, made by `links`. The devices count as printed from then on.
    func sheet(_ request: LabelSheetRequest, context: CallContext) async throws -> RawHTTPReply {
        let names: [String]
        switch request.devices {
        case .named(let named):
            names = named
        case .unprinted:
            names = try await unprinted(logger: context.logger)
            guard !names.isEmpty else { throw RPCError.notFound("Every device's label has been printed", reason: "no_unprinted_devices") }
        }
        guard !names.isEmpty else { throw RPCError.badRequest("name at least one device (name=TWOMES-…)", reason: "no_devices") }
        guard names.count <= LabelSheetInput.maximumLabels else {
            throw RPCError.badRequest("a label sheet holds at most \(LabelSheetInput.maximumLabels) devices", reason: "too_many_labels")
        }
        let transport = try request.transport()
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
        let sheet = LabelSheetInput(labels: labels, errorCorrection: try request.errorCorrection())
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

    private func payload(_ device: Device, transport: LabelTransport) throws -> String {
        // Devices registered before tokens were sealed have only the hash: their label cannot be remade.
        guard let sealed = device.sealedToken else {
            throw RPCError(
                .conflict, reason: "token_not_recoverable",
                message: "The activation token of \(device.name) was stored before labels were supported; register the device again")
        }
        let token = try sealer.open(sealed, context: TwomesDevices.sealingContext(device.name))
        return ProvisioningPayload.text(name: device.name, pop: token, transport: transport)
    }
}
