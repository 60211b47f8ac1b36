import CustodianContracts
import CustodianHTTP
import CustodianRPC
import CustodianRuntime
import CustodianSodium
import Foundation
import Logging
import PostgresNIO

/// Repos and their X25519 key pairs, made when a repo is created (by an admin, or by its owner's first write).
struct Repos: Sendable {
    let database: Database
    let keys: UserKeys

    struct Repo: Sendable {
        var id: Int64
        var identifier: String
        var publicKey: [UInt8]

        var publicKeyReply: RepoPublicKey { RepoPublicKey(id: id, identifier: identifier, public_key: publicKey.hex) }
    }

    static let identifierPattern = "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\\z"

    static func validIdentifier(_ identifier: String) throws -> String {
        guard identifier.range(of: identifierPattern, options: .regularExpression) != nil else {
            throw RPCError.badRequest("A repo identifier is 1 to 128 letters, digits, '.', '_' or '-'", reason: "invalid_request")
        }
        return identifier
    }

    /// `GET /api/repos/{identifier}/pub_key`.
    func publicKey(_ input: RepoRequest, context: CallContext) async throws -> RepoPublicKey {
        try await access(input.identifier, context: context, need: .publicKey, createIfMissing: false).publicKeyReply
    }

    /// What a request wants of a repo: its public key (to encrypt for it: readers and writers), its items
    /// (readers), or to add items (writers).
    enum Need { case publicKey, read, write }

    /// The repo a request may use: the caller's own, or for a module one it holds a permission on.
    func access(_ identifier: String, context: CallContext, need: Need, createIfMissing: Bool) async throws -> Repo {
        let principal = try VaultPrincipal(context)
        let identifier = try Self.validIdentifier(identifier)
        switch principal.kind {
        case .user:
            if let repo = try await find(userID: principal.userID, identifier: identifier, logger: context.logger) { return repo }
            guard createIfMissing else { throw RPCError.notFound("Repo \(identifier) not found", reason: "not_found") }
            return try await create(userID: principal.userID, identifier: identifier, logger: context.logger)
        case .module:
            let rows = try await database.query(
                """
                SELECT r.id, r.identifier, r.public_key, p.can_read, p.can_write
                FROM vault.repos r LEFT JOIN vault.permissions p ON p.repo_id = r.id AND p.module_id = \(principal.moduleID ?? -1)
                WHERE r.user_id = \(principal.userID) AND r.identifier = \(identifier)
                """, logger: context.logger)
            for try await (id, name, key, canRead, canWrite) in rows.decode((Int64, String, Data, Bool?, Bool?).self) {
                let (read, write) = (canRead ?? false, canWrite ?? false)
                let allowed =
                    switch need {
                    case .publicKey: read || write
                    case .read: read
                    case .write: write
                    }
                guard allowed else {
                    throw RPCError.forbidden("This module may not \(need == .write ? "write to" : "read") repo \(identifier)", reason: "forbidden")
                }
                return Repo(id: id, identifier: name, publicKey: Array(key))
            }
            throw RPCError.notFound("Repo \(identifier) not found", reason: "not_found")
        }
    }

    func find(userID: Int64, identifier: String, logger: Logger) async throws -> Repo? {
        let rows = try await database.query(
            "SELECT id, identifier, public_key FROM vault.repos WHERE user_id = \(userID) AND identifier = \(identifier)", logger: logger)
        for try await (id, name, key) in rows.decode((Int64, String, Data).self) {
            return Repo(id: id, identifier: name, publicKey: Array(key))
        }
        return nil
    }

    /// A new repo with its key pair; the secret key sealed to the owner's public key. Creating one that
    /// exists returns it unchanged.
    func create(userID: Int64, identifier: String, logger: Logger) async throws -> Repo {
        let ownerKey = try await keys.publicKey(userID: userID, logger: logger)
        let pair = try Sodium.boxKeyPair()
        let sealed = try Sodium.sealedBox(pair.secretKey, recipientPublicKey: ownerKey)
        try await database.query(
            """
            INSERT INTO vault.repos (user_id, identifier, public_key, secret_sealed)
            VALUES (\(userID), \(identifier), \(Data(pair.publicKey)), \(Data(sealed)))
            ON CONFLICT (user_id, identifier) DO NOTHING
            """, logger: logger)
        guard let repo = try await find(userID: userID, identifier: identifier, logger: logger) else {
            throw RPCError.internal("repo was not stored")
        }
        return repo
    }

    /// The repo's secret key, opened with the owner's password.
    func secretKey(_ repo: Repo, userID: Int64, password: String, logger: Logger) async throws -> [UInt8] {
        let owner = try await keys.keyPair(userID: userID, password: password, logger: logger)
        let rows = try await database.query("SELECT secret_sealed FROM vault.repos WHERE id = \(repo.id)", logger: logger)
        for try await sealed in rows.decode(Data.self) {
            return try Sodium.openSealedBox(Array(sealed), keyPair: owner)
        }
        throw RPCError.notFound("Repo \(repo.identifier) not found", reason: "not_found")
    }

    /// `POST /admin/v1/vault/users/{user_id}/repos {"identifier"}`.
    func create(_ input: CreateRepoRequest, context: CallContext) async throws -> RepoPublicKey {
        let userID = try await keys.requireUser(input.userID, logger: context.logger)
        let identifier = try Self.validIdentifier(try input.identifier.get())
        return try await create(userID: userID, identifier: identifier, logger: context.logger).publicKeyReply
    }
}
