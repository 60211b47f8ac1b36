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
    static let defaultPicture = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

    struct Entry: Codable, Sendable {
        var id: Int64
        var name: String
        var description: String
        var url: String
        var uid: String
        var secret: String
        var picture: String
        /// "Behavior of the Module list" 4: `[MODULE_URL]?PIA_URL=…&APP_KEY=…&APP_SECRET=…`.
        var launch_url: String
    }

    /// `GET /api/modules/index`: the user's modules, `[]` when there are none. A module's token lists its
    /// user's modules too: the app logs in with a module's key and secret from a login QR code (Login screen 2a).
    func index(_ input: HTTPInput, context: CallContext) async throws -> [Entry] {
        let principal = try VaultPrincipal(context)
        let rows = try await database.query(
            "SELECT id, name, description, url, picture, uid, secret_sealed FROM vault.modules WHERE user_id = \(principal.userID) ORDER BY id",
            logger: context.logger)
        var entries: [Entry] = []
        for try await (id, name, description, url, picture, uid, sealed) in rows.decode((Int64, String, String, String, String?, String, Data).self) {
            let secret = try sealer.open(sealed, context: Self.sealingContext(uid))
            entries.append(Entry(
                id: id, name: name, description: description, url: url, uid: uid, secret: secret,
                picture: picture ?? Self.defaultPicture, launch_url: launchURL(moduleURL: url, uid: uid, secret: secret)))
        }
        return entries
    }

    func launchURL(moduleURL: String, uid: String, secret: String) -> String {
        func encode(_ value: String) -> String {
            value.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? value
        }
        let separator = moduleURL.contains("?") ? "&" : "?"
        return "\(moduleURL)\(separator)PIA_URL=\(encode(publicBaseURL))&APP_KEY=\(encode(uid))&APP_SECRET=\(encode(secret))"
    }

    static func sealingContext(_ uid: String) -> String { "vault-module-secret:\(uid)" }

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

    struct CreateRequest: Decodable {
        var name: String
        var description: String?
        var url: String
        var picture: String?
    }

    struct Created: Codable, Sendable {
        var id: Int64
        var name: String
        var uid: String
        var secret: String
    }

    /// `POST /admin/v1/vault/users/{user_id}/modules`: installs a module; uid and secret are generated.
    func create(_ input: HTTPInput, context: CallContext) async throws -> Created {
        guard let userID = input.path["user_id"].flatMap(Int64.init),
            (try? await keys.publicKey(userID: userID, logger: context.logger)) != nil
        else { throw RPCError.notFound("No such user", reason: "not_found") }
        let request = try input.decodeBody(as: CreateRequest.self)
        guard (1...200).contains(request.name.count) else {
            throw RPCError.validation(location: ["body", "name"], message: "name must have 1 to 200 characters")
        }
        guard WebURL.isWeb(request.url) else {
            throw RPCError.validation(location: ["body", "url"], message: "url must be an http(s) URL")
        }
        if let picture = request.picture, !picture.hasPrefix("data:image/") || picture.count > 512 * 1024 {
            throw RPCError.validation(location: ["body", "picture"], message: "picture must be a data:image/… URL of at most 512 KiB")
        }
        let uid = Sodium.randomBytes(32).hex
        let secret = Sodium.randomBytes(32).hex
        let rows = try await database.query(
            """
            INSERT INTO vault.modules (user_id, name, description, url, picture, uid, secret_hash, secret_sealed)
            VALUES (\(userID), \(request.name), \(request.description ?? ""), \(request.url), \(request.picture),
                    \(uid), \(SecretToken.hash(secret)), \(try sealer.seal(secret, context: Self.sealingContext(uid))))
            RETURNING id
            """, logger: context.logger)
        for try await id in rows.decode(Int64.self) { return Created(id: id, name: request.name, uid: uid, secret: secret) }
        throw RPCError.internal("module was not stored")
    }

    struct GrantRequest: Decodable {
        var repo: String
        var read: Bool
        var write: Bool
    }

    struct Grant: Codable, Sendable {
        var module_id: Int64
        var repo: String
        var read: Bool
        var write: Bool
    }

    /// `POST /admin/v1/vault/modules/{module_id}/permissions {"repo","read","write"}`; the repo is made if missing.
    func grant(_ input: HTTPInput, context: CallContext, repos: Repos) async throws -> Grant {
        let request = try input.decodeBody(as: GrantRequest.self)
        let identifier = try Repos.validIdentifier(request.repo)
        guard let moduleID = input.path["module_id"].flatMap(Int64.init), let userID = try await owner(of: moduleID, logger: context.logger) else {
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
        for try await userID in try await database.query("SELECT user_id FROM vault.modules WHERE id = \(moduleID)", logger: logger).decode(Int64.self) {
            return userID
        }
        return nil
    }

    /// `GET /admin/v1/vault/modules/{module_id}/qr`: the app's login QR code (docs/vault.md).
    func loginQR(_ input: HTTPInput, context: CallContext) async throws -> RawHTTPReply {
        guard let moduleID = input.path["module_id"].flatMap(Int64.init) else { throw RPCError.notFound("No such module", reason: "not_found") }
        let rows = try await database.query("SELECT uid, secret_sealed FROM vault.modules WHERE id = \(moduleID)", logger: context.logger)
        for try await (uid, sealed) in rows.decode((String, Data).self) {
            let secret = try sealer.open(sealed, context: Self.sealingContext(uid))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let payload = String(decoding: try encoder.encode(["PIA_URL": publicBaseURL, "APP_KEY": uid, "APP_SECRET": secret]), as: UTF8.self)
            let formatName = input.query["format"]?.first ?? "png"
            guard let format = QRRenderInput.Format(rawValue: formatName) else {
                throw RPCError.badRequest("format must be png or svg", reason: "invalid_format")
            }
            return try await services.call(LinksMethods.qrRender, input: QRRenderInput(payload: payload, format: format), context: context)
        }
        throw RPCError.notFound("No such module", reason: "not_found")
    }
}
