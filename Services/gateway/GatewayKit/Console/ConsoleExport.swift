import CustodianContracts
import CustodianHTTP
import Foundation
import Hummingbird

/// The measurements page's view model: the export form, and each device type's properties to filter by.
struct ExportView: ConsoleView {
    var types: [DeviceType]
    var csrf = ""

    struct DeviceType {
        var name: String
        var display_name: String
        var properties: String
    }
}

extension ConsoleRoutes {
    func export(_ visit: ConsoleVisit, error: ConsoleFailure? = nil) async throws -> Response {
        let types = try await admin.call(DevicesMethods.deviceTypesList, NoInput(), for: visit).device_types
        let view = ExportView(
            types: types.map { .init(name: $0.name, display_name: $0.display_name, properties: $0.properties.map(\.name).joined(separator: ", ")) })
        return ConsolePage(
            title: "Measurements", template: "export", view: view, status: error?.status ?? .ok, error: error?.message, section: "export"
        )
        .response(csrf: visit.csrf)
    }

    func downloadMeasurements(_ visit: ConsoleVisit) async throws -> Response {
        try await download(visit, DevicesMethods.measurementsExport, names: ["format", "pseudonym", "device", "property", "from", "to"]) { error in
            try await export(visit, error: error)
        }
    }
}
