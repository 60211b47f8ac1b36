import CustodianContracts
import CustodianHTTP
import Foundation
import HTTPTypes
import Hummingbird

/// The erasure page's view model: the forms the visitor's scope may use, and what the last one did (a receipt, or
/// where a detached device was).
struct ErasureView: ConsoleView {
    var owner: Bool
    var `operator`: Bool
    var receipt: Receipt?
    var detached: String?
    var csrf = ""

    struct Receipt {
        var target: String
        var id: String
        var erased_at: String
        var by: String
        var counts: [Count]
        var nothing: Bool
    }

    struct Count {
        var kind: String
        var count: Int
    }
}

/// The console's erasure page (docs/erasure.md): erase a participant of any domain (owners), detach a device and
/// revoke an API consumer or a short link (operators too). Each form calls the admin API's method, so the scopes,
/// the audit entries and the errors are the API's; the answer is shown as its receipt.
extension ConsoleRoutes {
    /// What each form erases: the method it calls with the id typed, and the scope it needs (to show it or not).
    struct ErasureAction: Sendable {
        var form: String
        var scope: AdminScope
        var what: String
        var erase: @Sendable (ConsoleAdmin, String, ConsoleVisit) async throws -> ErasureReceipt
    }

    static let erasureActions: [ErasureAction] = [
        ErasureAction(form: "account", scope: .owner, what: "Twomes participant") { admin, id, visit in
            guard let pseudonym = Int(id) else { throw ConsoleFailure(status: .unprocessableContent, message: "“\(id)” is not a pseudonym.") }
            return try await admin.call(DevicesMethods.accountErase, AccountByPseudonym(pseudonym: pseudonym), for: visit)
        },
        ErasureAction(form: "device", scope: .owner, what: "Twomes device") { admin, id, visit in
            try await admin.call(DevicesMethods.deviceErase, DeviceByName(name: id), for: visit)
        },
        ErasureAction(form: "opensense", scope: .owner, what: "OpenSense device") { admin, id, visit in
            try await admin.call(DevicesMethods.opensenseErase, OpenSenseDeviceByID(deviceID: id), for: visit)
        },
        ErasureAction(form: "vault-user", scope: .owner, what: "data vault user") { admin, id, visit in
            guard let user = Int64(id) else { throw ConsoleFailure(status: .unprocessableContent, message: "“\(id)” is not a user id.") }
            return try await admin.call(AuthMethods.vaultUsersErase, VaultUserErasure(userID: user), for: visit)
        },
        ErasureAction(form: "lemon-app", scope: .owner, what: "tracing app") { admin, id, visit in
            try await admin.call(AuthMethods.lemonAppsErase, LemonAppByID(deviceID: id), for: visit)
        },
        ErasureAction(form: "consumer", scope: .operator, what: "API consumer") { admin, id, visit in
            try await admin.call(RoutesMethods.consumersRevoke, ConsumerByKey(key: id), for: visit)
        },
        ErasureAction(form: "link", scope: .operator, what: "short link") { admin, id, visit in
            try await admin.call(LinksMethods.shortRevoke, ShortLinkRevocation(code: id), for: visit)
        },
    ]

    func erasure(
        _ visit: ConsoleVisit, receipt: ErasureReceipt? = nil, detached: DeviceDetachment? = nil, error: ConsoleFailure? = nil
    ) async throws -> Response {
        let scope = AdminScope(of: visit.principal)
        let view = ErasureView(
            owner: scope == .owner, operator: scope?.allows(.operator) ?? false,
            receipt: receipt.map { receipt in
                .init(
                    target: receipt.target, id: receipt.id, erased_at: receipt.erased_at, by: receipt.erased_by.label ?? receipt.erased_by.id,
                    counts: receipt.deleted.sorted { $0.key < $1.key }.map { .init(kind: $0.key, count: $0.value) }, nothing: !receipt.erasedAnything)
            },
            detached: detached.map(Self.detachment))
        return ConsolePage(title: "Erasure", template: "erasure", view: view, status: error?.status ?? .ok, error: error?.message, section: "erasure")
            .response(csrf: visit.csrf)
    }

    /// Where a detached device was, and what stays with that account.
    static func detachment(_ detached: DeviceDetachment) -> String {
        guard let account = detached.detached_from else { return "\(detached.device) was attached to no account." }
        let kept = detached.measurements_kept
        return "\(detached.device) left account \(account); \(kept == 1 ? "its reading stays" : "its \(kept) readings stay") with that account."
    }

    func erase(_ visit: ConsoleVisit) async throws -> Response {
        try await form {
            let chosen = visit.text("action")
            guard chosen == "detach" || Self.erasureActions.contains(where: { $0.form == chosen }) else {
                throw ConsoleFailure(status: .badRequest, message: "Choose one of the page's forms.")
            }
            let action = Self.erasureActions.first { $0.form == chosen }
            guard let id = visit.text("id") else {
                throw ConsoleFailure(status: .unprocessableContent, message: "Which \(action?.what ?? "device")? The field is empty.")
            }
            guard let action else {
                return try await erasure(visit, detached: try await admin.call(DevicesMethods.deviceDetach, DeviceByName(name: id), for: visit))
            }
            // Owners' erasures cannot be undone: the form asks for the id twice rather than trusting one click.
            if action.scope == .owner, visit.text("confirm") != id {
                throw ConsoleFailure(
                    status: .unprocessableContent, message: "Type the \(action.what)'s id again under “Confirm” to erase it; nothing was erased.")
            }
            return try await erasure(visit, receipt: try await action.erase(admin, id, visit))
        } orShow: {
            try await erasure(visit, error: $0)
        }
    }
}
