import CustodianContracts
import CustodianHTTP
import Foundation
import HTTPTypes
import Hummingbird

/// The devices page's view model: the registration form (with what was typed, after a refusal), the device types to
/// choose from, the search, and the list (each device and account linking to its page) with its label-sheet form.
struct DevicesView: ConsoleView {
    var types: [DeviceType]
    var devices: [Device]
    var form: Entered
    var search: Search
    var next: String?
    var csrf = ""

    struct Search {
        var q: String?
        var types: [AccountsView.Choice]
        var states: [AccountsView.Choice]
        var query: String
    }

    struct DeviceType {
        var name: String
        var display_name: String
        var selected: Bool
    }

    struct Device {
        var name: String
        var href: String
        var device_type: String
        /// Nil: not attached (no `attached` further out for a nil to find).
        var attached: ParticipantLink?
        var completeness: String
        var activated: String
        var seen: String
        var printed: String
    }

    /// The registration form's fields as they were posted.
    struct Entered {
        var name: String?
        var device_type: String?
        var activation_token: String?
    }
}

extension ConsoleRoutes {
    func devices(
        _ visit: ConsoleVisit, form: DevicesView.Entered = .init(), notice: String? = nil, error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let q = visit.query("q")
        let type = visit.query("device_type")
        let state = try Self.choice("state", DeviceState.self, visit)
        let query = DevicesQuery(after: visit.query("after") ?? "", limit: 200, q: q, deviceType: type, state: state)
        async let types = admin.call(DevicesMethods.deviceTypesList, NoInput(), for: visit)
        async let page = admin.call(DevicesMethods.devicesList, query, for: visit)
        let typeNames = try await types.device_types
        let view = DevicesView(
            types: typeNames.map { .init(name: $0.name, display_name: $0.display_name, selected: $0.name == form.device_type) },
            devices: try await page.devices.map { device in
                .init(
                    name: device.name, href: Self.deviceLink(device.name), device_type: device.device_type,
                    attached: device.pseudonym.map(ParticipantLink.init),
                    completeness: device.activated_on == nil ? "" : Self.percent(device.completeness_24h),
                    activated: ConsoleText.display(device.activated_on, else: "not yet"), seen: ConsoleText.display(device.last_seen, else: "never"),
                    printed: device.label_printed_on == nil ? "no" : "yes")
            },
            form: form,
            search: .init(
                q: q, types: typeNames.map { .init(value: $0.name, selected: $0.name == type) },
                states: DeviceState.allCases.map { .init(value: $0.rawValue, selected: $0 == state) },
                query: Self.query(["q": q, "device_type": type, "state": state?.rawValue])),
            next: try await page.next_after.map { "after=\(ConsoleText.queryEscaped($0))" })
        return ConsolePage(
            title: "Devices", template: "devices", view: view, status: status,
            notice: notice ?? visit.query("registered").map { "Device \($0) is registered." }, error: error, section: "devices"
        ).response(csrf: visit.csrf)
    }

    func registerDevice(_ visit: ConsoleVisit) async throws -> Response {
        let entered = DevicesView.Entered(
            name: visit.text("name"), device_type: visit.text("device_type"), activation_token: visit.text("activation_token"))
        return try await form {
            guard let name = entered.name, let type = entered.device_type else {
                throw ConsoleFailure(status: .unprocessableContent, message: "Enter the device's name and choose its type.")
            }
            let device = try await admin.call(
                DevicesMethods.deviceCreate, CreateDeviceRequest(name: name, deviceType: type, activationToken: entered.activation_token), for: visit)
            return ConsoleLayout.redirect(to: "/console/twomes/devices?registered=\(ConsoleText.queryEscaped(device.name))")
        } orShow: { failure in
            try await devices(visit, form: entered, error: failure.message, status: failure.status)
        }
    }

    func labelSheet(_ visit: ConsoleVisit) async throws -> Response {
        let unprinted = visit.field("unprinted") == "true"
        let names = visit.form["name"] ?? []
        return try await form {
            if !unprinted && names.isEmpty {
                throw ConsoleFailure(status: .badRequest, message: "Select the devices whose labels to print, or print every device not printed yet.")
            }
            let transportText = visit.field("transport") ?? LabelTransport.ble.rawValue
            guard let transport = LabelTransport(rawValue: transportText) else {
                throw ConsoleFailure(status: .badRequest, message: "Provisioning over: “\(transportText)” is neither ble nor softap.")
            }
            let request = LabelSheetRequest(devices: unprinted ? .unprinted : .named(names), transport: transport)
            return try await admin.response(DevicesMethods.deviceLabels, request, for: visit)
        } orShow: { failure in
            try await devices(visit, error: failure.message, status: failure.status)
        }
    }
}
