import CustodianContracts
import CustodianHTTP
import CustodianJSON
import Foundation
import HTTPTypes
import Hummingbird

/// The OpenSense page's view model: the registered devices (a page of them, searched by the start of their id), the
/// batch export, and the configuration editor (each field with what it holds or what was typed, and the server's
/// reason beside the field it names).
struct OpenSenseView: ConsoleView {
    var devices: [Device]
    /// The search as typed, kept in its field.
    var q: String?
    /// The next page's address, the search kept.
    var next: String?
    /// The first page's address, on a later page.
    var first: String?
    var fields: [Field]
    var version: Int?
    var csrf = ""

    struct Device {
        var device_id: String
        /// The device's page.
        var href: String
        var registered_at: String
        var uploads: Int
        var batches: Int
        var last: String
    }

    struct Field {
        var key: String
        var label: String
        var checkbox: Bool
        var textarea: Bool
        var value: String
        var checked: Bool
        var error: String?
    }
}

extension ConsoleRoutes {
    /// The configuration's fields as the editor shows them, in the order the server checks them.
    static let configurationFields: [(key: String, label: String, kind: FieldKind)] = [
        ("name", "Name", .text), ("baseUrl", "Base URL", .text), ("dataUploadOnWifiOnly", "Upload on Wi-Fi only", .checkbox),
        ("configUpdatePeriod", "Configuration update period (seconds)", .number), ("dataArchivePeriod", "Data archive period (seconds)", .number),
        ("dataUploadPeriod", "Data upload period (seconds)", .number), ("maxDataFileSizeKb", "Largest data file (KiB)", .number),
        ("dataRequests", "Data requests (JSON: probe name → list of {\"interval\": seconds})", .json),
    ]

    enum FieldKind { case text, number, checkbox, json }

    func openSense(
        _ visit: ConsoleVisit, error: ConsoleFailure? = nil, entered: [String: String]? = nil,
        fieldError: (key: String, message: String)? = nil, notice: String? = nil
    ) async throws -> Response {
        let query = ConsoleListQuery<OpenSenseDevicesQuery>(visit, names: ["q", "after", "limit"])
        async let devices = list(DevicesMethods.opensenseDevices, query, for: visit) { $0.limit = $0.limit ?? 100 }
        async let configuration = admin.call(DevicesMethods.opensenseConfig, NoInput(), for: visit)
        let current = try await configuration
        let stored = Self.editable(current)
        let (page, refusal) = try await devices
        let view = OpenSenseView(
            devices: (page?.devices ?? []).map {
                .init(
                    device_id: $0.device_id, href: Self.openSenseDevicePath($0.device_id), registered_at: ConsoleText.display($0.registered_at),
                    uploads: $0.uploads, batches: $0.batches, last: ConsoleText.display($0.last_upload, else: "none yet"))
            },
            q: query.typed["q"], next: query.link("/console/opensense", "after", page?.next_after),
            first: query.firstLink("/console/opensense", "after"),
            fields: Self.configurationFields.map { field in
                let value = entered?[field.key] ?? stored[field.key] ?? ""
                return .init(
                    key: field.key, label: field.label, checkbox: field.kind == .checkbox, textarea: field.kind == .json, value: value,
                    checked: value == "true", error: fieldError?.key == field.key ? fieldError?.message : nil)
            },
            version: current.version)
        let failure = error ?? refusal
        return ConsolePage(
            title: "OpenSense", template: "opensense", view: view, status: failure?.status ?? .ok, notice: notice, error: failure?.message,
            section: "opensense"
        ).response(csrf: visit.csrf)
    }

    /// The configuration's values as its fields show them: numbers and booleans as written, the data requests pretty-printed.
    static func editable(_ configuration: OpenSenseConfiguration) -> [String: String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let requests = (try? encoder.encode(configuration.dataRequests)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return [
            "name": configuration.name, "baseUrl": configuration.baseUrl, "dataUploadOnWifiOnly": String(configuration.dataUploadOnWifiOnly),
            "configUpdatePeriod": String(configuration.configUpdatePeriod), "dataArchivePeriod": String(configuration.dataArchivePeriod),
            "dataUploadPeriod": String(configuration.dataUploadPeriod), "maxDataFileSizeKb": String(configuration.maxDataFileSizeKb),
            "dataRequests": requests,
        ]
    }

    func publishConfiguration(_ visit: ConsoleVisit) async throws -> Response {
        var entered: [String: String] = [:]
        for field in Self.configurationFields {
            entered[field.key] = (visit.field(field.key) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func refused(_ key: String, _ message: String) async throws -> Response {
            try await openSense(
                visit, error: ConsoleFailure(status: .unprocessableContent, message: "The configuration was not published."), entered: entered,
                fieldError: (key, message))
        }
        var periods: [String: Int64] = [:]
        for field in Self.configurationFields where field.kind == .number {
            let text = entered[field.key] ?? ""
            guard let number = Int64(text) else { return try await refused(field.key, "“\(text)” is not a whole number.") }
            periods[field.key] = number
        }
        let requestsText = entered["dataRequests"] ?? ""
        guard let requests = try? JSONValue.parse(Data(requestsText.utf8), maximumDepth: RouteForwarder.maximumJSONDepth) else {
            return try await refused("dataRequests", "This is not valid JSON.")
        }
        guard case .object(let probes) = requests, probes.values.allSatisfy({ $0.arrayValue != nil }) else {
            return try await refused("dataRequests", "This is not a map of probe names to lists of requests.")
        }
        let configuration = OpenSenseConfiguration(
            name: entered["name"] ?? "", version: 0, dataUploadOnWifiOnly: entered["dataUploadOnWifiOnly"] == "true",
            baseUrl: entered["baseUrl"] ?? "",
            configUpdatePeriod: periods["configUpdatePeriod"] ?? 0, dataArchivePeriod: periods["dataArchivePeriod"] ?? 0,
            dataUploadPeriod: periods["dataUploadPeriod"] ?? 0, maxDataFileSizeKb: periods["maxDataFileSizeKb"] ?? 0,
            dataRequests: probes.mapValues { $0.arrayValue ?? [] })
        do {
            let stored = try await admin.call(
                DevicesMethods.opensenseReplaceConfig, OpenSenseConfigurationUpdate(configuration: configuration), for: visit)
            return try await openSense(visit, notice: "The configuration is published as version \(stored.version).")
        } catch let failure as ConsoleFailure where failure.status.code < 500 {
            // The server names the field first: `baseUrl: baseUrl must be an http(s) URL`.
            let parts = failure.message.split(separator: ":", maxSplits: 1)
            let key = parts.first.map { String($0.split(separator: ".").first ?? $0) }
            if let key, parts.count == 2, Self.configurationFields.contains(where: { $0.key == key }) {
                return try await refused(key, parts[1].trimmingCharacters(in: .whitespaces))
            }
            return try await openSense(visit, error: failure, entered: entered)
        }
    }

    func downloadBatches(_ visit: ConsoleVisit) async throws -> Response {
        try await download(visit, DevicesMethods.opensenseExport, names: ["format"]) { error in try await openSense(visit, error: error) }
    }
}
