import CustodianContracts
import CustodianHTTP
import Foundation
import HTTPTypes
import Hummingbird

/// The data vault page's view model: its users with their repos and modules (and what each module may do), what a
/// form just made, and the forms.
struct VaultView: ConsoleView {
    var users: [User]
    /// The next page's address and, on a later page, the first's.
    var next: String?
    var first: String?
    var created: Created?
    var csrf = ""

    struct User {
        var id: Int64
        var repos: [Repo]
        var modules: [Module]
    }

    struct Repo {
        var identifier: String
        var items: Int64
    }

    struct Module {
        var id: Int64
        var name: String
        var permissions: [Permission]
    }

    struct Permission {
        var repo: String
        var access: String
    }
}

/// What a form made, field by field, for the "created" box (secrets marked, shown this once), with a QR code to log in.
struct Created {
    var heading: String
    var fields: [Field]
    var qr: String?
    var qrSize = 240

    struct Field {
        var name: String
        var value: String
        var secret = false
    }
}

extension ConsoleRoutes {
    func vault(_ visit: ConsoleVisit, created: Created? = nil, notice: String? = nil, error: ConsoleFailure? = nil) async throws -> Response {
        let query = ConsoleListQuery<VaultUsersQuery>(visit, names: ["after", "limit"])
        let (page, refusal) = try await list(VaultMethods.adminUsers, query, for: visit)
        let view = VaultView(
            users: (page?.users ?? []).map { user in
                .init(
                    id: user.id, repos: user.repos.map { .init(identifier: $0.identifier, items: $0.items) },
                    modules: user.modules.map { module in
                        .init(
                            id: module.id, name: module.name,
                            permissions: module.permissions.map {
                                .init(repo: $0.repo, access: Self.access(read: $0.read, write: $0.write) ?? "none")
                            })
                    })
            },
            next: query.link("/console/vault", "after", page?.next_after.map(String.init)), first: query.firstLink("/console/vault", "after"),
            created: created)
        let failure = error ?? refusal
        return ConsolePage(
            title: "Data vault", template: "vault", view: view, status: failure?.status ?? .ok, notice: notice, error: failure?.message,
            section: "vault"
        ).response(csrf: visit.csrf)
    }

    /// `read+write`, `read`, `write`, or nil for no access.
    static func access(read: Bool, write: Bool, separator: String = "+") -> String? {
        let access = [read ? "read" : nil, write ? "write" : nil].compactMap { $0 }
        return access.isEmpty ? nil : access.joined(separator: separator)
    }

    /// A form's required whole-number field (an id): a 422 page naming it when it is empty or not a number.
    static func requiredNumber(_ visit: ConsoleVisit, _ name: String, label: String, inQuery: Bool = false) throws -> Int64 {
        guard let number: Int64 = try visit.number(name, label: label, inQuery: inQuery) else {
            throw ConsoleFailure(status: .unprocessableContent, message: "\(label): enter one.")
        }
        return number
    }

    func createVaultUser(_ visit: ConsoleVisit) async throws -> Response {
        try await form {
            let request = VaultUserCreate(email: visit.text("email") ?? "", name: visit.text("name") ?? "", password: visit.field("password") ?? "")
            let user = try await admin.call(AuthMethods.vaultUsersCreate, request, for: visit)
            return try await vault(visit, created: Created(heading: "User created", fields: [.init(name: "id", value: String(user.id))]))
        } orShow: {
            try await vault(visit, error: $0)
        }
    }

    func createModule(_ visit: ConsoleVisit) async throws -> Response {
        try await form {
            let user = try Self.requiredNumber(visit, "user_id", label: "User id")
            let definition = ModuleDefinition(name: visit.text("name") ?? "", description: visit.text("description"), url: visit.text("url") ?? "")
            let module = try await admin.call(VaultMethods.adminCreateModule, CreateModuleRequest(userID: user, module: definition), for: visit)
            let qr = try await admin.raw(VaultMethods.adminModuleQR, ModuleQRRequest(moduleID: module.id), for: visit)
            let fields: [Created.Field] = [
                .init(name: "id", value: String(module.id)), .init(name: "name", value: module.name), .init(name: "uid", value: module.uid),
                .init(name: "secret", value: module.secret, secret: true),
            ]
            return try await vault(visit, created: Created(heading: "Module created", fields: fields, qr: ConsoleAdmin.dataURL(qr)))
        } orShow: {
            try await vault(visit, error: $0)
        }
    }

    func createRepo(_ visit: ConsoleVisit) async throws -> Response {
        try await form {
            let user = try Self.requiredNumber(visit, "user_id", label: "User id")
            let repo = try await admin.call(
                VaultMethods.adminCreateRepo, CreateRepoRequest(userID: user, identifier: visit.text("identifier") ?? ""), for: visit)
            let fields: [Created.Field] = [
                .init(name: "id", value: String(repo.id)), .init(name: "identifier", value: repo.identifier),
                .init(name: "public_key", value: repo.public_key),
            ]
            return try await vault(visit, created: Created(heading: "Repo created", fields: fields))
        } orShow: {
            try await vault(visit, error: $0)
        }
    }

    func grant(_ visit: ConsoleVisit) async throws -> Response {
        try await form {
            let module = try Self.requiredNumber(visit, "module_id", label: "Module id")
            let request = GrantRequest(
                moduleID: module, repo: visit.text("repo") ?? "", read: visit.field("read") == "true", write: visit.field("write") == "true")
            let granted = try await admin.call(VaultMethods.adminGrant, request, for: visit)
            let notice =
                Self.access(read: granted.read, write: granted.write, separator: " and ").map { "The module may \($0) \(granted.repo)." }
                ?? "The module has no access to \(granted.repo) now."
            return try await vault(visit, notice: notice)
        } orShow: {
            try await vault(visit, error: $0)
        }
    }

    func moduleQR(_ visit: ConsoleVisit) async throws -> Response {
        try await form {
            let module = try Self.requiredNumber(visit, "module_id", label: "Module id", inQuery: true)
            let qr = try await admin.raw(VaultMethods.adminModuleQR, ModuleQRRequest(moduleID: module), for: visit)
            return try await vault(visit, created: Created(heading: "Module \(module)'s login QR code", fields: [], qr: ConsoleAdmin.dataURL(qr)))
        } orShow: {
            try await vault(visit, error: $0)
        }
    }
}
