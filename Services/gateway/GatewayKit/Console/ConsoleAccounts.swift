import CustodianContracts
import CustodianHTTP
import Foundation
import HTTPTypes
import Hummingbird

/// The Twomes accounts page's view model: the new-account form (every field of `POST /account`, its defaults as
/// placeholders), the search, the list (each account's link state and devices, each linking to its page), and whether
/// the visitor may open each participant's audit history (owners).
struct AccountsView: ConsoleView {
    var accounts: [Account]
    var next: String?
    var owner: Bool
    var search: Search
    var form: Entered
    var defaults: Defaults
    var csrf = ""

    struct Account {
        var pseudonym: Int
        var href: String
        var created_on: String
        var state: String
        var devices: [Device]
    }

    struct Device {
        var name: String
        var href: String
        var device_type: String
        var seen: String
    }

    /// The search's fields as they were sent, and the states to choose from.
    struct Search {
        var q: String?
        var states: [Choice]
        /// The search as a query, for the paging link.
        var query: String
    }

    struct Choice {
        var value: String
        var selected: Bool
    }

    /// The new-account form's fields as they were posted.
    struct Entered {
        var pseudonym: String?
        var latitude: String?
        var longitude: String?
        var timezone: String?
    }

    struct Defaults {
        var latitude = String(CreateAccountRequest.defaultLocation.latitude)
        var longitude = String(CreateAccountRequest.defaultLocation.longitude)
        var timezone = CreateAccountRequest.defaultTimezone
        var first = CreateAccountRequest.pseudonymRange.lowerBound
        var last = CreateAccountRequest.pseudonymRange.upperBound
    }
}

extension ConsoleRoutes {
    func accounts(
        _ visit: ConsoleVisit, form: AccountsView.Entered = .init(), error: String? = nil, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let q = visit.query("q")
        let state = try Self.choice("state", AccountState.self, visit)
        let page = try await admin.call(
            DevicesMethods.accountsList, AccountsQuery(after: try visit.number("after") ?? 0, limit: 100, q: q, state: state), for: visit)
        let view = AccountsView(
            accounts: page.accounts.map { account in
                .init(
                    pseudonym: account.pseudonym, href: Self.participantLink(account.pseudonym), created_on: ConsoleText.display(account.created_on),
                    state: account.activated_on.map { "activated \(ConsoleText.display($0))" }
                        ?? account.activation_expires_at.map { Self.linkState($0) } ?? "not activated",
                    devices: account.devices.map { device in
                        .init(
                            name: device.name, href: Self.deviceLink(device.name), device_type: device.device_type,
                            seen: device.last_seen.map { "last seen \(ConsoleText.display($0))" } ?? "no measurements yet")
                    })
            },
            next: page.next_after.map { "after=\($0)" },
            // An owner reaches each participant's audit history from their pseudonym.
            owner: AdminScope(of: visit.principal) == .owner,
            search: .init(
                q: q, states: AccountState.allCases.map { .init(value: $0.rawValue, selected: $0 == state) },
                query: Self.query(["q": q, "state": state?.rawValue])),
            form: form, defaults: .init())
        return ConsolePage(title: "Twomes accounts", template: "accounts", view: view, status: status, error: error, section: "accounts")
            .response(csrf: visit.csrf)
    }

    /// `POST /account` with the fields given (each left empty takes the service's default), then the new account's
    /// activation link, QR code and expiry; a refusal shows the form again with what was typed.
    func createAccount(_ visit: ConsoleVisit) async throws -> Response {
        let entered = AccountsView.Entered(
            pseudonym: visit.text("pseudonym"), latitude: visit.text("latitude"), longitude: visit.text("longitude"), timezone: visit.text("timezone")
        )
        return try await form {
            var request = CreateAccountRequest()
            if let text = entered.pseudonym {
                guard let pseudonym = Int(text) else { throw Self.notNumber("Pseudonym", text, whole: true) }
                request.pseudonym = pseudonym
            }
            switch (entered.latitude, entered.longitude) {
            case (nil, nil): break
            case (let latitude?, let longitude?):
                guard let latitude = Double(latitude) else { throw Self.notNumber("Latitude", latitude) }
                guard let longitude = Double(longitude) else { throw Self.notNumber("Longitude", longitude) }
                request.location = .init(latitude: latitude, longitude: longitude)
            default:
                throw ConsoleFailure(status: .unprocessableContent, message: "Give both the latitude and the longitude, or neither.")
            }
            if let timezone = entered.timezone { request.timezone = timezone }
            let account = try await admin.call(DevicesMethods.accountCreate, request, for: visit)
            let detail = try? await admin.call(DevicesMethods.accountDetail, AccountDetailQuery(pseudonym: account.pseudonym, days: 1), for: visit)
            return try await activationPage(
                visit, pseudonym: account.pseudonym, link: account.firebase_url, expires: detail?.activation_expires_at, reissued: false)
        } orShow: { failure in
            try await accounts(visit, form: entered, error: failure.message, status: failure.status)
        }
    }

    static func notNumber(_ label: String, _ text: String, whole: Bool = false) -> ConsoleFailure {
        ConsoleFailure(status: .unprocessableContent, message: "\(label): “\(text.prefix(40))” is not \(whole ? "a whole number" : "a number").")
    }

    /// Whether an activation link still works, by its expiry.
    static func linkState(_ expiresAt: String) -> String {
        let expired = ISO8601DateFormatter().date(from: expiresAt).map { $0 < Date() } ?? false
        return "\(expired ? "link expired" : "link valid until") \(ConsoleText.display(expiresAt))"
    }

    /// The QR code the console shows of a link (an activation link, a short link): a PNG of 6-pixel modules.
    static func qrCode(of link: String) -> QRQuery {
        QRQuery(render: QRRenderInput(payload: link, format: .png, moduleSize: 6))
    }

    /// A list filter's value from the query, one of `T`'s words; another value is a 400 page naming the words.
    static func choice<T: RawRepresentable & CaseIterable>(_ name: String, _ type: T.Type, _ visit: ConsoleVisit) throws -> T?
    where T.RawValue == String {
        guard let text = visit.query(name) else { return nil }
        guard let value = T(rawValue: text) else {
            let words = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConsoleFailure(status: .badRequest, message: "\(name): “\(text.prefix(40))” is not one of \(words).")
        }
        return value
    }

    /// A list's search as a query string (fields left empty left out), to carry into its paging links.
    static func query(_ fields: KeyValuePairs<String, String?>) -> String {
        fields.compactMap { name, value in value.map { "\(name)=\(ConsoleText.queryEscaped($0))" } }.joined(separator: "&")
    }
}
