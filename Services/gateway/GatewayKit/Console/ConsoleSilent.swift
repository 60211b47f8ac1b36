import CustodianContracts
import CustodianHTTP
import Foundation
import Hummingbird

/// The silent devices: activated, attached Twomes devices with no reading for longer than the threshold (or none ever).
struct SilentView: ConsoleView {
    var threshold: String
    var byName: Bool
    var devices: [Device]
    var count: String
    var csrf = ""

    struct Device {
        var name: String
        var href: String
        var device_type: String
        var attached: ParticipantLink?
        var seen: String
        var completeness: String
    }
}

extension ConsoleRoutes {
    static let defaultSilentThreshold = "2h"
    /// The most the page lists; the count says when there are more.
    static let silentPageSize = 500

    /// `GET /admin/v1/devices?silent_for=2h` (oldest reading first), or by name; a threshold that is not a duration is a 400 page.
    func silentDevices(_ visit: ConsoleVisit) async throws -> Response {
        let threshold = visit.query("silent_for") ?? Self.defaultSilentThreshold
        guard let seconds = SilentDuration.seconds(threshold) else {
            throw ConsoleFailure(
                status: .badRequest, message: "Silent for: “\(threshold.prefix(40))” is not a duration such as 90m, 2h or 1d (1 minute to 366 days).")
        }
        let sort = visit.query("sort") ?? DeviceOrder.last_seen.rawValue
        guard let order = DeviceOrder(rawValue: sort) else {
            throw ConsoleFailure(status: .badRequest, message: "Sort by: “\(sort.prefix(40))” is neither last_seen nor name.")
        }
        let page = try await admin.call(DevicesMethods.devicesList, DevicesQuery(limit: Self.silentPageSize, silentFor: seconds), for: visit)
        var devices = page.devices
        // The route lists the oldest reading first; by name is this page's own order.
        if order == .name { devices.sort { $0.name < $1.name } }
        let view = SilentView(
            threshold: threshold, byName: order == .name,
            devices: devices.map { device in
                .init(
                    name: device.name, href: Self.deviceLink(device.name), device_type: device.device_type,
                    attached: device.pseudonym.map(ParticipantLink.init), seen: ConsoleText.display(device.last_seen, else: "never"),
                    completeness: Self.percent(device.completeness_24h))
            },
            count: ConsoleText.counted(devices.count, "device") + (page.next_after == nil ? "" : " (the first \(Self.silentPageSize))"))
        return ConsolePage(title: "Silent devices", template: "silent", view: view, section: "silent").response(csrf: visit.csrf)
    }

    /// A share as a whole percentage (`0.93` → `93%`), or "no heartbeat" for a type without one.
    static func percent(_ share: Double?) -> String {
        share.map { "\(Int(($0 * 100).rounded()))%" } ?? "no heartbeat"
    }
}
