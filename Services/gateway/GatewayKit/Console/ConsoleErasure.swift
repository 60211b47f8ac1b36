import CustodianContracts
import CustodianHTTP
import CustodianJSON
import Foundation
import HTTPTypes
import Hummingbird

/// The console's erasure page (docs/erasure.md): erase a participant of any domain (owners), detach a device and
/// revoke an API consumer or a short link (operators too). Each form calls the admin API's route, so the scopes,
/// the audit entries and the errors are the API's; the answer is shown as its receipt.
extension ConsoleRoutes {
    /// What each form does: its route, the path parameter it fills, and the scope it needs (to show it or not).
    static let erasureActions: [(form: String, method: HTTPRequest.Method, route: String, parameter: String, scope: AdminScope, what: String)] = [
        ("account", .delete, "/admin/v1/accounts/{pseudonym}", "pseudonym", .owner, "Twomes participant"),
        ("device", .delete, "/admin/v1/devices/{device_name}", "device_name", .owner, "Twomes device"),
        ("opensense", .delete, "/admin/v1/opensense/devices/{device_id}", "device_id", .owner, "OpenSense device"),
        ("vault-user", .delete, "/admin/v1/vault/users/{user_id}", "user_id", .owner, "data vault user"),
        ("lemon-app", .delete, "/admin/v1/lemon/apps/{device_id}", "device_id", .owner, "tracing app"),
        ("detach", .post, "/admin/v1/devices/{device_name}/detach", "device_name", .operator, "device"),
        ("consumer", .delete, "/admin/v1/api-consumers/{consumer_key}", "consumer_key", .operator, "API consumer"),
        ("link", .delete, "/admin/v1/links/{code}", "code", .operator, "short link"),
    ]

    func addErasure(_ router: Router<GatewayRequestContext>) {
        page(router, .get, "/console/erasure") { try await erasure($0) }
        page(router, .post, "/console/erasure", erase)
    }

    func erasure(
        _ visit: ConsoleVisit, receipt: ErasureReceipt? = nil, detached: JSONValue? = nil, error: ConsoleFailure? = nil
    ) async throws -> Response {
        let scope = AdminScope(of: visit.principal)
        var values: [String: Any] = ["owner": scope == .owner, "operator": scope?.allows(.operator) ?? false]
        if let receipt {
            let counts: [[String: Any]] = receipt.deleted.keys.sorted().map { kind in ["kind": kind, "count": receipt.deleted[kind] ?? 0] }
            values["receipt"] =
                [
                    "target": receipt.target, "id": receipt.id, "erased_at": receipt.erased_at, "by": receipt.erased_by.label ?? receipt.erased_by.id,
                    "counts": counts, "nothing": !receipt.erasedAnything,
                ] as [String: Any]
        }
        if let detached { values["detached"] = detached.templateValue }
        return ConsolePage(
            title: "Erasure", template: "erasure", values: values, status: error?.status ?? .ok, error: error?.message, section: "erasure"
        ).response(csrf: visit.csrf)
    }

    private func erase(_ visit: ConsoleVisit) async throws -> Response {
        do {
            guard let action = Self.erasureActions.first(where: { $0.form == visit.text("action") }) else {
                throw ConsoleFailure(status: .badRequest, message: "Choose one of the page's forms.")
            }
            guard let id = visit.text("id"), !id.isEmpty else {
                throw ConsoleFailure(status: .unprocessableContent, message: "Which \(action.what)? The field is empty.")
            }
            // Owners' erasures cannot be undone: the form asks for the id twice rather than trusting one click.
            if action.scope == .owner, visit.text("confirm") != id {
                throw ConsoleFailure(
                    status: .unprocessableContent, message: "Type the \(action.what)'s id again under “Confirm” to erase it; nothing was erased.")
            }
            let answer = try await admin.json(action.method, action.route, HTTPInput(path: [action.parameter: id]), for: visit)
            if action.form == "detach" { return try await erasure(visit, detached: answer) }
            return try await erasure(visit, receipt: JSONValueDecoder().decode(ErasureReceipt.self, from: answer))
        } catch let failure as ConsoleFailure where failure.status.code < 500 {
            return try await erasure(visit, error: failure)
        }
    }
}

extension ConsoleTemplates {
    static let erasureTemplate = """
        {{#receipt}}<div id="receipt"><h2>Receipt</h2><p>{{#nothing}}Nothing was left of {{target}} {{id}}: it had been erased, or never was.{{/nothing}}
        {{^nothing}}Erased {{target}} {{id}} at {{erased_at}}, by {{by}}.{{/nothing}}</p>
        <table id="receipt-counts"><thead><tr><th scope="col">What</th><th scope="col" class="number">Rows</th></tr></thead>
        <tbody>{{#counts}}<tr><td>{{kind}}</td><td class="number">{{count}}</td></tr>{{/counts}}</tbody></table></div>{{/receipt}}
        {{#detached}}<div id="detached"><h2>Detached</h2><p>{{device}} {{#detached_from}}left account {{detached_from}}; its {{measurements_kept}}
        readings stay with that account.{{/detached_from}}{{^detached_from}}was attached to no account.{{/detached_from}}</p></div>{{/detached}}
        <p>Each action is recorded in the audit log with your identity, and each answers with what it removed
        (the <a href="/docs#tag-admin">admin API reference</a> and docs/erasure.md say what each removes and keeps). Backups taken
        before keep what they hold.</p>
        {{^operator}}<p>Your identity reads: erasing and revoking need an operator's or an owner's token.</p>{{/operator}}
        {{#owner}}<h2>Erase a participant</h2><p>This cannot be undone. Type the id twice.</p>
        <form class="stack" method="post" action="/console/erasure"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="action" value="account">
        <div><label for="erase-account">Twomes pseudonym</label><input id="erase-account" name="id" inputmode="numeric" required></div>
        <div><label for="erase-account-confirm">Confirm the pseudonym</label><input id="erase-account-confirm" name="confirm" inputmode="numeric" required></div>
        <div><button id="erase-account-submit" class="danger" type="submit">Erase the participant</button></div></form>
        <form class="stack" method="post" action="/console/erasure"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="action" value="device">
        <div><label for="erase-device">Twomes device name (the device and every reading it took)</label><input id="erase-device" name="id" required></div>
        <div><label for="erase-device-confirm">Confirm the device name</label><input id="erase-device-confirm" name="confirm" required></div>
        <div><button id="erase-device-submit" class="danger" type="submit">Erase the device</button></div></form>
        <form class="stack" method="post" action="/console/erasure"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="action" value="opensense">
        <div><label for="erase-opensense">OpenSense device id</label><input id="erase-opensense" name="id" required></div>
        <div><label for="erase-opensense-confirm">Confirm the device id</label><input id="erase-opensense-confirm" name="confirm" required></div>
        <div><button id="erase-opensense-submit" class="danger" type="submit">Erase the device's data</button></div></form>
        <form class="stack" method="post" action="/console/erasure"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="action" value="vault-user">
        <div><label for="erase-vault-user">Data vault user id</label><input id="erase-vault-user" name="id" inputmode="numeric" required></div>
        <div><label for="erase-vault-user-confirm">Confirm the user id</label><input id="erase-vault-user-confirm" name="confirm" inputmode="numeric" required></div>
        <div><button id="erase-vault-user-submit" class="danger" type="submit">Erase the user</button></div></form>
        <form class="stack" method="post" action="/console/erasure"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="action" value="lemon-app">
        <div><label for="erase-lemon-app">Tracing app device id (the app and its survey submissions)</label><input id="erase-lemon-app" name="id" required></div>
        <div><label for="erase-lemon-app-confirm">Confirm the device id</label><input id="erase-lemon-app-confirm" name="confirm" required></div>
        <div><button id="erase-lemon-app-submit" class="danger" type="submit">Erase the app</button></div></form>{{/owner}}
        {{#operator}}<h2>Detach a device</h2><p>For deploying it with another account: its readings stay with the account they were taken for.</p>
        <form class="stack" method="post" action="/console/erasure"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="action" value="detach">
        <div><label for="detach-device">Device name</label><input id="detach-device" name="id" required></div>
        <div><button id="detach-submit" type="submit">Detach</button></div></form>
        <h2>Revoke</h2>
        <form class="stack" method="post" action="/console/erasure"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="action" value="consumer">
        <div><label for="revoke-consumer">API consumer key</label><input id="revoke-consumer" name="id" required></div>
        <div><button id="revoke-consumer-submit" type="submit">Revoke the consumer</button></div></form>
        <form class="stack" method="post" action="/console/erasure"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="action" value="link">
        <div><label for="revoke-link">Short link code</label><input id="revoke-link" name="id" required></div>
        <div><button id="revoke-link-submit" type="submit">Revoke the link</button></div></form>{{/operator}}
        """
}
