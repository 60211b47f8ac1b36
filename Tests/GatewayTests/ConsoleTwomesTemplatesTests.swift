import CustodianContracts
import Foundation
import Testing

@testable import GatewayKit

/// The Twomes study pages' templates (accounts, participant, device, silent devices, cohort), with view models whose
/// values each must show; ``ConsoleTemplatesTests`` renders them with the others.
extension ConsoleTemplatesTests {
    static var twomesSamples: [(template: String, view: Any, shows: [String])] {
        [
            (
                "accounts",
                AccountsView(
                    accounts: [
                        .init(
                            pseudonym: 812_345, href: "/console/twomes/accounts/812345", created_on: "C-2", state: "A-2",
                            devices: [.init(name: "D-2", href: "/console/twomes/devices/D-2", device_type: "T-2", seen: "S-2")])
                    ],
                    next: "after=812345", owner: true,
                    search: .init(q: "81", states: [.init(value: "expired", selected: true)], query: "q=81&state=expired"),
                    form: .init(pseudonym: "P-2", latitude: "LA-2", longitude: nil, timezone: nil), defaults: .init()),
                [
                    #"data-pseudonym="812345""#, #"<a class="participant" href="/console/twomes/accounts/812345">812345</a>"#, "C-2", "A-2",
                    #"<a class="device" href="/console/twomes/devices/D-2">D-2</a> (T-2, S-2)"#, "/console/audit?target=812345",
                    "?after=812345&amp;q=81&amp;state=expired", #"id="accounts-q" name="q" inputmode="numeric" value="81""#,
                    #"<option value="expired" selected>expired</option>"#, #"value="P-2""#, #"value="LA-2""#, #"placeholder="52.50655""#,
                    #"placeholder="6.09961""#, #"placeholder="Europe/Amsterdam""#, #"href="/console/twomes/cohort""#,
                ]
            ),
            (
                "account-created",
                ActivationView(pseudonym: 812_346, link: "https://l-3", qr: "data:q-3", expires: "E-3", reissued: true),
                ["812346", #"href="https://l-3""#, #"src="data:q-3""#, #"<strong id="activation-expires">E-3</strong>"#, "has a new activation link"]
            ),
            (
                "devices",
                DevicesView(
                    types: [.init(name: "N-4", display_name: "DN-4", selected: true)],
                    devices: [
                        .init(
                            name: "D-4", href: "/console/twomes/devices/D-4", device_type: "T-4", attached: .init(812_347), completeness: "CP-4",
                            activated: "AC-4", seen: "S-4", printed: "P-4")
                    ],
                    form: .init(name: "F-4", device_type: "N-4", activation_token: "AT-4"),
                    search: .init(
                        q: "Q-4", types: [.init(value: "N-4", selected: true)], states: [.init(value: "attached", selected: false)], query: "q=Q-4"),
                    next: "after=X-4"),
                [
                    #"<option value="N-4" selected>DN-4 (N-4)</option>"#, #"data-device="D-4""#,
                    #"<a class="device" href="/console/twomes/devices/D-4">D-4</a>"#,
                    #"<a class="participant" href="/console/twomes/accounts/812347">812347</a>"#, "CP-4", "AC-4", "S-4", "P-4", #"value="F-4""#,
                    #"value="AT-4""#, "?after=X-4&amp;q=Q-4", #"id="devices-q" name="q" value="Q-4""#, #"<option value="attached">attached</option>"#,
                ]
            ),
            (
                "participant",
                ParticipantView(
                    pseudonym: 812_348, created: "C-5", state: "expired", activated: nil, expires: "E-5", reissue: true, expired: true,
                    devices: [.init(name: "D-5", href: "/console/twomes/devices/D-5", device_type: "T-5", activated: "A-5", seen: "S-5")],
                    chart: "<svg>CH-5</svg>", owner: false),
                [
                    "C-5", "expired: the link expired E-5", #"action="/console/twomes/accounts/812348/activation""#, #"id="reissue-activation""#,
                    #"<a class="device" href="/console/twomes/devices/D-5">D-5</a>"#, "T-5", "A-5", "S-5", "<svg>CH-5</svg>",
                ]
            ),
            (
                "device",
                DevicePageView(
                    name: "D-6", device_type: "T-6", account: .init(812_349), created: "C-6", activated: "A-6", seen: "S-6", printed: "P-6",
                    attachments: [
                        .init(holder: nil, erased: true, first: "F-6", last: "L-6", uploads: 61),
                        .init(holder: .init(812_349), erased: false, first: "F2-6", last: "L2-6", uploads: 62),
                    ],
                    chart: "<svg>CH-6</svg>", latest: [.init(property: "PR-6", value: "V-6", unit: "U-6", time: "TI-6")]),
                [
                    "T-6", #"<dd id="device-account"><a class="participant" href="/console/twomes/accounts/812349">812349</a></dd>"#, "C-6", "A-6",
                    "S-6", "P-6", "<tr><td>erased account</td><td>F-6</td>", ">61<", ">62<", "<svg>CH-6</svg>", "PR-6", "V-6 U-6", "TI-6",
                ]
            ),
            (
                "silent",
                SilentView(
                    threshold: "3h", byName: true,
                    devices: [
                        .init(
                            name: "D-7", href: "/console/twomes/devices/D-7", device_type: "T-7", attached: .init(812_350), seen: "S-7",
                            completeness: "71%")
                    ],
                    count: "1 device"),
                [
                    #"value="3h""#, #"<option value="name" selected>"#, #"<a class="device" href="/console/twomes/devices/D-7">D-7</a>"#,
                    #"href="/console/twomes/accounts/812350">812350</a>"#, "S-7", "71%", "1 device",
                ]
            ),
            ("cohort", CohortFormView(count: "12", columns: "pseudonym,latitude", maximum: 500), [#"value="12""#, "pseudonym,latitude", "1 to 500"]),
            (
                "cohort-sheet",
                CohortSheetView(
                    letters: [
                        .init(pseudonym: 812_351, link: "https://l-8", expires: "E-8", qr: "data:q-8"),
                        .init(pseudonym: 812_352, link: "https://l-9", expires: "E-9", qr: "data:q-9"),
                    ],
                    count: "2 households"),
                [
                    #"<article class="letter" data-pseudonym="812351">"#, #"href="https://l-8""#, "E-8", #"src="data:q-8""#, "812352",
                    #"href="https://l-9""#, "2 households",
                ]
            ),
        ]
    }

    /// A nil optional is looked up outward by swift-mustache: an attachment of an erased account must not show the
    /// device's current account, nor a reissue form appear for an activated participant.
    @Test func aMissingValueIsNotTakenFromAroundIt() {
        let device = DevicePageView(
            name: "D", device_type: "T", account: .init(812_360), created: "", activated: "", seen: "", printed: "",
            attachments: [.init(holder: nil, erased: true, first: "", last: "", uploads: 1)], chart: "", latest: [])
        let html = ConsoleTemplates.render(device, "device")
        #expect(html.components(separatedBy: #"href="/console/twomes/accounts/812360""#).count - 1 == 1, "only the device's account: \(html)")
        #expect(html.contains("<tr><td>erased account</td>"))
        let participant = ParticipantView(
            pseudonym: 812_361, created: "", state: "activated", activated: "A", expires: nil, reissue: false, expired: false, devices: [],
            chart: "", owner: false)
        let page = ConsoleTemplates.render(participant, "participant")
        #expect(!page.contains("reissue-activation") && page.contains("activated A"))
    }
}
