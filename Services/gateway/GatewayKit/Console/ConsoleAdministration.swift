import CustodianContracts
import CustodianHTTP
import CustodianJSON
import Foundation
import HTTPTypes
import Hummingbird

/// The audit log page's view model: the entries that match the filters, with links to download them all.
struct AuditView: ConsoleView {
    var entries: [Entry]
    var filters: Filters
    var filterQuery: String
    var next: Int64?
    var csrf = ""

    struct Entry {
        var seq: Int64
        var at: String
        var phase: String
        var who: String
        var action: String
        var targets: [Target]
        var query: String
        var status: String
        var rows: String
        var bytes: String
    }

    struct Target {
        var id: String
        var link: String
        /// A target that is a Twomes pseudonym links to the participant's page too.
        var participant: ParticipantLink?
    }

    struct Filters {
        var identity: String?
        var action: String?
        var target: String?
        var from: String?
        var to: String?
    }
}

/// The admin tokens page's view model: the identities (each revocable while active), a new token (shown once), the form.
struct TokensView: ConsoleView {
    var identities: [Identity]
    var scopes: [String]
    var created: Created?
    var csrf = ""

    struct Identity {
        var id: String
        var label: String
        var scope: String
        var created_by: String
        var created_at: String
        var expires_at: String
        var last_used_at: String
        var revoked_at: String
        var active: Bool
    }

    struct Created {
        var label: String
        var scope: String
        var token: String
    }
}

/// A page of `GET /admin/v1/audit?format=json`, as the auth service writes it.
private struct AuditPage: Decodable {
    var entries: [Entry]
    var next_after: Int64?

    struct Entry: Decodable {
        var seq: Int64
        var at: String
        var phase: String
        var identity: String
        var identity_label: String?
        var action: String
        var targets: [String]
        var query: String?
        var status: Int?
        var rows: Int64?
        var bytes: Int64?
    }
}

/// The console's pages for owners: the audit log with the API's filters, and the admin identities (list, create, revoke).
extension ConsoleRoutes {
    static let auditFilters = ["identity", "action", "target", "from", "to"]

    func audit(_ visit: ConsoleVisit, error: ConsoleFailure? = nil) async throws -> Response {
        // The filters go as typed, for the audit route to check (a time it cannot read is its 400).
        var query: [String: [String]] = ["format": ["json"], "limit": ["100"]]
        for name in Self.auditFilters + ["after"] { if let value = visit.query(name) { query[name] = [value] } }
        let first = try await admin.firstPage(AuthMethods.auditList, forwarding: HTTPInput(query: query), for: visit)
        let page = try? JSONValueDecoder().decode(AuditPage.self, from: JSONValue.parse(Data(first.chunk.utf8)))
        let filters = AuditView.Filters(
            identity: visit.query("identity"), action: visit.query("action"), target: visit.query("target"), from: visit.query("from"),
            to: visit.query("to"))
        let view = AuditView(
            entries: (page?.entries ?? []).map { entry in
                .init(
                    seq: entry.seq, at: ConsoleText.display(entry.at), phase: entry.phase, who: entry.identity_label ?? entry.identity,
                    action: entry.action,
                    targets: entry.targets.map { target in
                        .init(
                            id: target, link: ConsoleText.queryEscaped(target),
                            participant: Int(target).flatMap { CreateAccountRequest.pseudonymRange.contains($0) ? ParticipantLink($0) : nil })
                    }, query: entry.query ?? "",
                    status: entry.status.map(String.init) ?? "", rows: entry.rows.map(String.init) ?? "", bytes: entry.bytes.map(String.init) ?? "")
            },
            filters: filters,
            filterQuery: Self.auditFilters.compactMap { name in visit.query(name).map { "\(name)=\(ConsoleText.queryEscaped($0))" } }
                .joined(separator: "&"),
            next: page?.next_after)
        return ConsolePage(title: "Audit log", template: "audit", view: view, status: error?.status ?? .ok, error: error?.message, section: "audit")
            .response(csrf: visit.csrf)
    }

    func downloadAudit(_ visit: ConsoleVisit) async throws -> Response {
        try await download(visit, AuthMethods.auditList, names: ["format"] + Self.auditFilters) { error in try await audit(visit, error: error) }
    }

    func tokens(
        _ visit: ConsoleVisit, created: CreatedAdminToken? = nil, notice: String? = nil, error: ConsoleFailure? = nil
    ) async throws
        -> Response
    {
        let list = try await admin.call(AuthMethods.tokensList, NoInput(), for: visit)
        let view = TokensView(
            identities: list.identities.map { identity in
                .init(
                    id: identity.id, label: identity.label, scope: identity.scope.rawValue, created_by: identity.created_by ?? "",
                    created_at: ConsoleText.display(identity.created_at), expires_at: ConsoleText.display(identity.expires_at, else: ""),
                    last_used_at: ConsoleText.display(identity.last_used_at, else: ""),
                    revoked_at: ConsoleText.display(identity.revoked_at, else: ""),
                    active: identity.revoked_at == nil)
            },
            scopes: AdminScope.allCases.map(\.rawValue),
            created: created.map { .init(label: $0.identity.label, scope: $0.identity.scope.rawValue, token: $0.token) })
        return ConsolePage(
            title: "Admin tokens", template: "tokens", view: view, status: error?.status ?? (created == nil ? .ok : .created), notice: notice,
            error: error?.message, section: "tokens"
        ).response(csrf: visit.csrf)
    }

    func createToken(_ visit: ConsoleVisit) async throws -> Response {
        try await form {
            let scopeText = visit.text("scope") ?? ""
            guard let scope = AdminScope(rawValue: scopeText) else {
                throw ConsoleFailure(status: .unprocessableContent, message: "Scope: “\(scopeText)” is not one of \(AdminScope.names).")
            }
            var expiresIn: Int?
            if let days = visit.text("expires_days") {
                guard let number = Int(days), (1...3650).contains(number) else {
                    throw ConsoleFailure(
                        status: .unprocessableContent, message: "Expires after: “\(days)” is not a whole number of days from 1 to 3650 (or empty).")
                }
                expiresIn = number * 86_400
            }
            let request = CreateAdminToken(label: visit.text("label") ?? "", scope: scope, expiresIn: expiresIn)
            return try await tokens(visit, created: try await admin.call(AuthMethods.tokensCreate, request, for: visit))
        } orShow: {
            try await tokens(visit, error: $0)
        }
    }

    func revokeToken(_ visit: ConsoleVisit) async throws -> Response {
        try await form {
            let text = visit.text("id") ?? ""
            guard let id = UUID(uuidString: text) else {
                throw ConsoleFailure(status: .unprocessableContent, message: "“\(text)” is not an admin identity's id.")
            }
            let revoked = try await admin.call(AuthMethods.tokensRevoke, AdminIdentityByID(id: id), for: visit)
            return try await tokens(visit, notice: "\(revoked.label)'s token is revoked.")
        } orShow: {
            try await tokens(visit, error: $0)
        }
    }
}
