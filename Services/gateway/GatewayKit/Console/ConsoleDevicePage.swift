import CustodianContracts
import CustodianHTTP
import Foundation
import Hummingbird

/// A Twomes device's page: its type and account, the accounts it uploaded for, its heartbeats per day against the 144
/// expected, and the newest reading of each property.
struct DevicePageView: ConsoleView {
    var name: String
    var device_type: String
    var account: ParticipantLink?
    var created: String
    var activated: String
    var seen: String
    var printed: String
    var attachments: [Attachment]
    var chart: String
    var latest: [Reading]
    var csrf = ""

    struct Attachment {
        /// Nil when the account was erased (named apart from the device's `account`: a nil value is looked up outward).
        var holder: ParticipantLink?
        var erased: Bool
        var first: String
        var last: String
        var uploads: Int
    }

    struct Reading {
        var property: String
        var value: String
        var unit: String
        var time: String
    }
}

extension ConsoleRoutes {
    /// A device's page: its name as a path segment (unreserved characters as they are, as they are printed on it).
    static func deviceLink(_ name: String) -> String {
        "/console/twomes/devices/\(name.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? "")"
    }

    func devicePage(_ visit: ConsoleVisit) async throws -> Response {
        let name = visit.context.parameters.get("name").map { $0.removingPercentEncoding ?? $0 } ?? ""
        let device = try await admin.call(DevicesMethods.deviceDetail, DeviceDetailQuery(name: name), for: visit)
        let chart = DailyChart(
            id: "heartbeats-chart", title: "Heartbeats per day", noun: "heartbeat", from: device.from, to: device.to,
            series: [.init(name: "heartbeats", counts: Dictionary(device.days.map { ($0.date, $0.heartbeats) }, uniquingKeysWith: +))],
            expected: device.expected_heartbeats_per_day)
        let view = DevicePageView(
            name: device.name, device_type: device.device_type, account: device.pseudonym.map(ParticipantLink.init),
            created: ConsoleText.display(device.created_on),
            activated: ConsoleText.display(device.activated_on, else: "not yet"), seen: ConsoleText.display(device.last_seen, else: "never"),
            printed: ConsoleText.display(device.label_printed_on, else: "not yet"),
            attachments: device.attachments.map { attachment in
                .init(
                    holder: attachment.pseudonym.map(ParticipantLink.init), erased: attachment.pseudonym == nil,
                    first: ConsoleText.display(attachment.first_upload, else: "none yet"),
                    last: ConsoleText.display(attachment.last_upload, else: "none yet"), uploads: attachment.uploads)
            },
            chart: chart.html,
            latest: device.latest.map {
                .init(property: $0.property, value: $0.value, unit: $0.unit ?? "", time: ConsoleText.display($0.timestamp))
            })
        return ConsolePage(title: "Device \(device.name)", template: "device", view: view, section: "devices").response(csrf: visit.csrf)
    }
}
