import CustodianContracts
import CustodianHTTP
import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import CustodianSodium
import CustodianWeb
import Foundation
import Logging
import PostgresNIO

/// The web apps ("modules") installed in a user's vault: listed in the app, opened with their uid and secret,
/// and able to obtain client-credential tokens limited to the repos they were granted.
struct Modules: Sendable {
    let database: Database
    let keys: UserKeys
    let sealer: Sealer
    let publicBaseURL: String
    let services: RPCClient

    /// A 1 × 1 transparent PNG, for modules installed without a picture.
    static let defaultPicture =
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

    /// `GET /api/modules/index`: the user's modules, `[]` when there are none. A module's token lists its
    /// user's modules too: the app logs in with a module's key and secret from a login QR code (Login screen 2a).
    func index(_ input: NoInput, context: CallContext) async throws -> [ModuleEntry] {
        let principal = try VaultPrincipal(context)
        let rows = try await database.query(
            "SELECT id, name, description, url, picture, uid, secret_sealed FROM vault.modules WHERE user_id = \(principal.userID) ORDER BY id",
            logger: context.logger)
        var entries: [ModuleEntry] = []
        for try await (id, name, description, url, picture, uid, sealed) in rows.decode((Int64, String, String, String, String?, String, Data).self) {
            let secret = try sealer.open(sealed, context: Self.sealingContext(uid))
            entries.append(
                ModuleEntry(
                    id: id, name: name, description: description, url: url, uid: uid, secret: secret,
                    picture: picture ?? Self.defaultPicture, launch_url: launchURL(moduleURL: url, uid: uid, secret: secret)))
        }
        return entries
    }

    func launchURL(moduleURL: String, uid: String, secret: String) -> String {
        func encode(_ value: String) -> String {
            value.addingPercentEncoding(
                withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? value
        }
        let separator = moduleURL.contains("?") ? "&" : "?"
        return "\(moduleURL)\(separator)PIA_URL=\(encode(publicBaseURL))&APP_KEY=\(encode(uid))&APP_SECRET=\(encode(secret))"
    }

    /// The module secrets the vault gives back in launch URLs (the repos' and users' keys are sealed with their owners'
    /// passwords instead, which the deployment's key has nothing to do with).
    static let sealed = SealedColumn(table: "vault.modules", column: "secret_sealed", key: "uid", contextPrefix: "vault-module-secret:")

    static func sealingContext(_ uid: String) -> String { sealed.context(uid) }

    /// For auth's client-credentials grant: the module a uid and secret belong to.
    func credentials(_ input: ModuleCredentialsInput, context: CallContext) async throws -> ModuleCredentials {
        let hash = SecretToken.hash(input.secret)
        let rows = try await database.query(
            "SELECT id, user_id, secret_hash FROM vault.modules WHERE uid = \(input.uid)", logger: context.logger)
        for try await (id, userID, stored) in rows.decode((Int64, Int64, Data).self) where SecretToken.constantTimeEquals(stored, hash) {
            return ModuleCredentials(moduleID: id, userID: userID)
        }
        throw RPCError.unauthenticated("Invalid client credentials", reason: "invalid_client")
    }

    /// `POST /admin/v1/vault/users/{user_id}/modules`: installs a module; uid and secret are generated.
    func create(_ input: CreateModuleRequest, context: CallContext) async throws -> CreatedModule {
        let userID = try await keys.requireUser(input.userID, logger: context.logger)
        let request = try input.module.get()
        let uid = Sodium.randomBytes(32).hex
        let secret = Sodium.randomBytes(32).hex
        let rows = try await database.query(
            """
            INSERT INTO vault.modules (user_id, name, description, url, picture, uid, secret_hash, secret_sealed)
            VALUES (\(userID), \(request.name), \(request.description ?? ""), \(request.url), \(request.picture),
                    \(uid), \(SecretToken.hash(secret)), \(try sealer.seal(secret, context: Self.sealingContext(uid))))
            RETURNING id
            """, logger: context.logger)
        for try await id in rows.decode(Int64.self) { return CreatedModule(id: id, name: request.name, uid: uid, secret: secret) }
        throw RPCError.internal("module was not stored")
    }

    /// `POST /admin/v1/vault/modules/{module_id}/permissions {"repo","read","write"}`; the repo is made if missing.
    func grant(_ request: GrantRequest, context: CallContext, repos: Repos) async throws -> Grant {
        let identifier = try Repos.validIdentifier(request.repo)
        guard let moduleID = request.moduleID, let userID = try await owner(of: moduleID, logger: context.logger) else {
            throw RPCError.notFound("No such module", reason: "not_found")
        }
        let repo = try await repos.create(userID: userID, identifier: identifier, logger: context.logger)
        try await database.query(
            """
            INSERT INTO vault.permissions (module_id, repo_id, can_read, can_write) VALUES (\(moduleID), \(repo.id), \(request.read), \(request.write))
            ON CONFLICT (module_id, repo_id) DO UPDATE SET can_read = EXCLUDED.can_read, can_write = EXCLUDED.can_write
            """, logger: context.logger)
        return Grant(module_id: moduleID, repo: identifier, read: request.read, write: request.write)
    }

    private func owner(of moduleID: Int64, logger: Logger) async throws -> Int64? {
        for try await userID in try await database.query("SELECT user_id FROM vault.modules WHERE id = \(moduleID)", logger: logger).decode(
            Int64.self)
        {
            return userID
        }
        return nil
    }

    /// `GET /admin/v1/vault/modules/{module_id}/qr`: the app's login QR code (docs/vault.md, "`GET /admin/v1/vault/modules/{module_id}/qr`: the app's login QR code").
    func loginQR(_ input: ModuleQRRequest, context: CallContext) async throws -> RawHTTPReply {
        guard let moduleID = input.moduleID else { throw RPCError.notFound("No such module", reason: "not_found") }
        let rows = try await database.query("SELECT uid, secret_sealed FROM vault.modules WHERE id = \(moduleID)", logger: context.logger)
        for try await (uid, sealed) in rows.decode((String, Data).self) {
            let secret = try sealer.open(sealed, context: Self.sealingContext(uid))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let payload = String(decoding: try encoder.encode(["PIA_URL": publicBaseURL, "APP_KEY": uid, "APP_SECRET": secret]), as: UTF8.self)
            return try await services.call(
                LinksMethods.qrRender, input: QRRenderInput(payload: payload, format: try input.format.get()), context: context)
        }
        throw RPCError.notFound("No such module", reason: "not_found")
    }
}
