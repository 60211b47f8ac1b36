import CustodianContracts
import CustodianHTTP
import Foundation
import Hummingbird

/// A Twomes participant's page: their devices, where their activation stands (and, not activated, a form that issues a
/// new link), and their readings per day and property over the last 30 days.
struct ParticipantView: ConsoleView {
    var pseudonym: Int
    var created: String
    var state: String
    var activated: String?
    var expires: String?
    /// Not activated and the visitor may issue a new link (operators, owners).
    var reissue: Bool
    var expired: Bool
    var devices: [Device]
    var chart: String
    var owner: Bool
    var csrf = ""

    struct Device {
        var name: String
        var href: String
        var device_type: String
        var activated: String
        var seen: String
    }
}

/// A new activation link's page (a new account, or a link issued again): the pseudonym, the link, its QR code and expiry.
struct ActivationView: ConsoleView {
    var pseudonym: Int
    var link: String
    var qr: String
    var expires: String?
    var reissued: Bool
    var qrSize = 240
    var csrf = ""
}

/// A pseudonym shown as a link to the participant's page.
struct ParticipantLink {
    var pseudonym: Int
    var href: String

    init(_ pseudonym: Int) {
        self.pseudonym = pseudonym
        href = ConsoleRoutes.participantLink(pseudonym)
    }
}

extension ConsoleRoutes {
    /// `/console/twomes/accounts/{pseudonym}`: a path that is not a pseudonym is a 404 page, before any call.
    static func pseudonym(_ visit: ConsoleVisit) throws -> Int {
        let text = visit.context.parameters.get("pseudonym") ?? ""
        guard let pseudonym = Int(text), CreateAccountRequest.pseudonymRange.contains(pseudonym) else {
            throw ConsoleFailure(status: .notFound, message: "“\(text.prefix(40))” is not a pseudonym: they are six digits, 800000 to 899999.")
        }
        return pseudonym
    }

    static func participantLink(_ pseudonym: Int) -> String { "/console/twomes/accounts/\(pseudonym)" }

    func participant(_ visit: ConsoleVisit) async throws -> Response {
        let account = try await admin.call(DevicesMethods.accountDetail, AccountDetailQuery(pseudonym: try Self.pseudonym(visit)), for: visit)
        let scope = AdminScope(of: visit.principal)
        let properties = account.days.reduce(into: [String]()) { if !$0.contains($1.property) { $0.append($1.property) } }
        let chart = DailyChart(
            id: "readings-chart", title: "Readings per day, by property", noun: "reading", from: account.from, to: account.to,
            series: properties.map { property in
                .init(
                    name: property,
                    counts: Dictionary(account.days.filter { $0.property == property }.map { ($0.date, $0.count) }, uniquingKeysWith: +))
            })
        let view = ParticipantView(
            pseudonym: account.pseudonym, created: ConsoleText.display(account.created_on), state: account.activation_state,
            activated: account.activated_on.map(ConsoleText.display), expires: account.activation_expires_at.map(ConsoleText.display),
            reissue: account.activated_on == nil && (scope?.allows(.operator) ?? false),
            expired: account.activation_state == AccountState.expired.rawValue,
            devices: account.devices.map { device in
                .init(
                    name: device.name, href: Self.deviceLink(device.name), device_type: device.device_type,
                    activated: ConsoleText.display(device.activated_on, else: "not yet"), seen: ConsoleText.display(device.last_seen, else: "never"))
            },
            chart: chart.html, owner: scope == .owner)
        return ConsolePage(
            title: "Participant \(account.pseudonym)", template: "participant", view: view, section: "accounts"
        ).response(csrf: visit.csrf)
    }

    /// A new activation link for an account not activated yet (its old link stops working), shown as account creation shows one.
    func reissueActivation(_ visit: ConsoleVisit) async throws -> Response {
        let issued = try await admin.call(DevicesMethods.accountReissue, AccountByPseudonym(pseudonym: try Self.pseudonym(visit)), for: visit)
        return try await activationPage(
            visit, pseudonym: issued.pseudonym, link: issued.firebase_url, expires: issued.activation_expires_at, reissued: true)
    }

    func activationPage(_ visit: ConsoleVisit, pseudonym: Int, link: String, expires: String?, reissued: Bool) async throws -> Response {
        let qr = try await admin.raw(LinksMethods.qrHttp, Self.qrCode(of: link), for: visit)
        return ConsolePage(
            title: reissued ? "New activation link" : "Account created", template: "account-created",
            view: ActivationView(
                pseudonym: pseudonym, link: link, qr: ConsoleAdmin.dataURL(qr), expires: expires.map(ConsoleText.display), reissued: reissued),
            status: .created, section: "accounts"
        ).response(csrf: visit.csrf)
    }
}
