import CustodianContracts
import CustodianHTTP
import Foundation
import Hummingbird

/// The Twomes accounts page's view model: the list (with each account's devices), and whether the visitor may open
/// each participant's audit history (owners).
struct AccountsView: ConsoleView {
    var accounts: [Account]
    var next: Int?
    var owner: Bool
    var csrf = ""

    struct Account {
        var pseudonym: Int
        var created_on: String
        var activated: String
        var devices: [Device]
    }

    struct Device {
        var name: String
        var device_type: String
        var seen: String
    }
}

/// A new account's page: its pseudonym, and its activation link as a link and a QR code.
struct AccountCreatedView: ConsoleView {
    var pseudonym: Int
    var link: String
    var qr: String
    var qrSize = 240
    var csrf = ""
}

extension ConsoleRoutes {
    func accounts(_ visit: ConsoleVisit) async throws -> Response {
        let page = try await admin.call(DevicesMethods.accountsList, AccountsQuery(after: try visit.number("after") ?? 0, limit: 100), for: visit)
        let view = AccountsView(
            accounts: page.accounts.map { account in
                .init(
                    pseudonym: account.pseudonym, created_on: ConsoleText.display(account.created_on),
                    activated: ConsoleText.display(account.activated_on, else: "not yet"),
                    devices: account.devices.map { device in
                        .init(
                            name: device.name, device_type: device.device_type,
                            seen: device.last_seen.map { "last seen \(ConsoleText.display($0))" } ?? "no measurements yet")
                    })
            },
            next: page.next_after,
            // An owner reaches each participant's audit history from their pseudonym.
            owner: AdminScope(of: visit.principal) == .owner)
        return ConsolePage(title: "Twomes accounts", template: "accounts", view: view, section: "accounts").response(csrf: visit.csrf)
    }

    func createAccount(_ visit: ConsoleVisit) async throws -> Response {
        let account = try await admin.call(DevicesMethods.accountCreate, CreateAccountRequest(), for: visit)
        let qr = try await admin.raw(LinksMethods.qrHttp, Self.qrCode(of: account.firebase_url), for: visit)
        return ConsolePage(
            title: "Account created", template: "account-created",
            view: AccountCreatedView(pseudonym: account.pseudonym, link: account.firebase_url, qr: ConsoleAdmin.dataURL(qr)),
            status: .created, section: "accounts"
        ).response(csrf: visit.csrf)
    }

    /// The QR code the console shows of a link (an activation link, a short link): a PNG of 6-pixel modules.
    static func qrCode(of link: String) -> QRQuery {
        QRQuery(render: QRRenderInput(payload: link, format: .png, moduleSize: 6))
    }
}
