import CustodianContracts
import CustodianHTTP
import CustodianJSON
import Foundation
import HTTPTypes
import Hummingbird

/// The console's pages for owners: the audit log with the API's filters, and the admin identities (list, create, revoke).
extension ConsoleRoutes {
    static let auditFilters = ["identity", "action", "target", "from", "to"]

    func addAdministration(_ router: Router<GatewayRequestContext>) {
        page(router, .get, "/console/audit") { try await audit($0) }
        page(router, .get, "/console/audit/download") { visit in
            try await download(visit, route: "/admin/v1/audit", names: ["format"] + Self.auditFilters) { error in try await audit(visit, error: error)
            }
        }
        page(router, .get, "/console/tokens") { try await tokens($0) }
        page(router, .post, "/console/tokens", createToken)
        page(router, .post, "/console/tokens/revoke", revokeToken)
    }

    func audit(_ visit: ConsoleVisit, error: ConsoleFailure? = nil) async throws -> Response {
        var query: [String: [String]] = ["format": ["json"], "limit": ["100"]]
        var filters: [String: String] = [:]
        for name in Self.auditFilters + ["after"] {
            if let value = visit.query(name) {
                query[name] = [value]
                filters[name] = value
            }
        }
        let page = try await admin.firstPage(.get, "/admin/v1/audit", HTTPInput(query: query), for: visit)
        let answer = (try? JSONValue.parse(Data(page.chunk.utf8))) ?? .null
        let entries = (answer["entries"]?.arrayValue ?? []).map { entry -> [String: Any] in
            var values = entry.templateValue as? [String: Any] ?? [:]
            values["who"] = entry["identity_label"]?.stringValue ?? entry["identity"]?.stringValue ?? ""
            values["targets"] = (entry["targets"]?.arrayValue ?? []).compactMap(\.stringValue).map { ["id": $0, "link": Self.queryEscaped($0)] }
            return values
        }
        let filterQuery = Self.auditFilters.compactMap { name in filters[name].map { "\(name)=\(Self.queryEscaped($0))" } }.joined(separator: "&")
        var values: [String: Any] = ["entries": entries, "filters": filters, "filterQuery": filterQuery]
        if case .int(let next)? = answer["next_after"] { values["next"] = next }
        return ConsolePage(
            title: "Audit log", template: "audit", values: values, status: error?.status ?? .ok, error: error?.message,
            section: "audit"
        ).response(csrf: visit.csrf)
    }

    func tokens(_ visit: ConsoleVisit, created: JSONValue? = nil, notice: String? = nil, error: ConsoleFailure? = nil) async throws -> Response {
        let list = try await admin.json(.get, "/admin/v1/tokens", for: visit)
        var values: [String: Any] = [
            "identities": (list["identities"]?.arrayValue ?? []).map { identity -> [String: Any] in
                var values = identity.templateValue as? [String: Any] ?? [:]
                values["active"] = identity["revoked_at"].map { $0 == .null } ?? true
                return values
            },
            "scopes": AdminScope.allCases.map(\.rawValue),
        ]
        if let created { values["created"] = created.templateValue }
        return ConsolePage(
            title: "Admin tokens", template: "tokens", values: values, status: error?.status ?? (created == nil ? .ok : .created),
            notice: notice, error: error?.message, section: "tokens"
        ).response(csrf: visit.csrf)
    }

    private func createToken(_ visit: ConsoleVisit) async throws -> Response {
        do {
            var body: [String: JSONValue] = ["label": .string(visit.text("label") ?? ""), "scope": .string(visit.text("scope") ?? "")]
            if let days = visit.text("expires_days") {
                guard let number = Int(days), (1...3650).contains(number) else {
                    throw ConsoleFailure(status: .unprocessableContent, message: "Expires after: a whole number of days from 1 to 3650, or empty.")
                }
                body["expires_in"] = .int(Int64(number) * 86_400)
            }
            let created = try await admin.json(.post, "/admin/v1/tokens", HTTPInput(body: .object(body)), for: visit)
            return try await tokens(visit, created: created)
        } catch let failure as ConsoleFailure where failure.status.code < 500 {
            return try await tokens(visit, error: failure)
        }
    }

    private func revokeToken(_ visit: ConsoleVisit) async throws -> Response {
        do {
            let id = visit.text("id") ?? ""
            let revoked = try await admin.json(.delete, "/admin/v1/tokens/{token_id}", HTTPInput(path: ["token_id": id]), for: visit)
            return try await tokens(visit, notice: "\(revoked["label"]?.stringValue ?? id)'s token is revoked.")
        } catch let failure as ConsoleFailure where failure.status.code < 500 {
            return try await tokens(visit, error: failure)
        }
    }
}

extension ConsoleTemplates {
    /// Sections only owners see in the navigation.
    static let ownersSections: Set<String> = ["audit", "tokens"]

    static let administrationTemplates: [String: String] = [
        "audit": """
        <p>Every admin action, by whom and on what, in the order it was recorded: a <code>begin</code> entry before the action and an
        <code>end</code> entry with its outcome. Each entry carries the hash of the one before it (<code>custodian audit verify</code>).</p>
        <form class="stack" method="get" action="/console/audit">
        <div><label for="audit-identity">Identity (label or id)</label><input id="audit-identity" name="identity" value="{{filters.identity}}"></div>
        <div><label for="audit-action">Action</label><input id="audit-action" name="action" value="{{filters.action}}" placeholder="GET /admin/v1/measurements"></div>
        <div><label for="audit-target">Target (a pseudonym, a device, an id)</label><input id="audit-target" name="target" value="{{filters.target}}"></div>
        <div><label for="audit-from">From</label><input id="audit-from" name="from" value="{{filters.from}}" placeholder="2026-01-01T00:00:00Z"></div>
        <div><label for="audit-to">To</label><input id="audit-to" name="to" value="{{filters.to}}"></div>
        <div><button id="audit-filter" type="submit">Show</button></div></form>
        <p><a id="audit-csv" href="/console/audit/download?format=csv&{{filterQuery}}">Download as CSV</a> ·
        <a id="audit-ndjson" href="/console/audit/download?format=ndjson&{{filterQuery}}">Download as NDJSON</a></p>
        <table id="audit-entries"><thead><tr><th scope="col" class="number">#</th><th scope="col">When (UTC)</th><th scope="col">Phase</th>
        <th scope="col">Who</th><th scope="col">Action</th><th scope="col">Targets</th><th scope="col">Query</th><th scope="col" class="number">Status</th>
        <th scope="col" class="number">Rows</th><th scope="col" class="number">Bytes</th></tr></thead>
        <tbody>{{#entries}}<tr data-seq="{{seq}}"><td class="number">{{seq}}</td><td>{{at}}</td><td>{{phase}}</td><td>{{who}}</td><td><code>{{action}}</code></td>
        <td>{{#targets}}<a href="/console/audit?target={{link}}">{{id}}</a> {{/targets}}</td><td><code>{{query}}</code></td>
        <td class="number">{{status}}</td><td class="number">{{rows}}</td><td class="number">{{bytes}}</td></tr>{{/entries}}
        {{^entries}}<tr><td colspan="10">No entries match.</td></tr>{{/entries}}</tbody></table>
        {{#next}}<p><a id="audit-next" href="/console/audit?after={{next}}&{{filterQuery}}">Later entries</a></p>{{/next}}
        """,
        "tokens": """
        {{#created}}<div id="created"><h2>New token</h2><p>The token of {{created.identity.label}} ({{created.identity.scope}}) is shown this once:
        hand it over now.</p><p id="new-token" class="secret">{{created.token}}</p></div>{{/created}}
        <h2>New identity</h2>
        <p>Researchers read lists and exports; operators also create and change; owners do everything, tokens and the audit log included.</p>
        <form class="stack" method="post" action="/console/tokens"><input type="hidden" name="csrf" value="{{csrf}}">
        <div><label for="token-label">Label (who it is for)</label><input id="token-label" name="label" required maxlength="100"></div>
        <div><label for="token-scope">Scope</label><select id="token-scope" name="scope">{{#scopes}}<option>{{.}}</option>{{/scopes}}</select></div>
        <div><label for="token-expires">Expires after (days; empty: until revoked)</label><input id="token-expires" name="expires_days" inputmode="numeric"></div>
        <div><button id="create-token" type="submit">Create token</button></div></form>
        <h2>Identities</h2>
        <table id="identities"><thead><tr><th scope="col">Label</th><th scope="col">Scope</th><th scope="col">Made by</th><th scope="col">Made</th>
        <th scope="col">Expires</th><th scope="col">Last used</th><th scope="col">Revoked</th><th scope="col"></th></tr></thead>
        <tbody>{{#identities}}<tr data-id="{{id}}"><td>{{label}}</td><td>{{scope}}</td><td>{{created_by}}</td><td>{{created_at}}</td><td>{{expires_at}}</td>
        <td>{{last_used_at}}</td><td>{{revoked_at}}</td><td>{{#active}}<form method="post" action="/console/tokens/revoke"><input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="id" value="{{id}}"><button class="secondary revoke" type="submit">Revoke</button></form>{{/active}}</td></tr>{{/identities}}</tbody></table>
        """,
    ]
}
