import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianRuntime
import Foundation
import PostgresNIO

/// What an operator sees of the vault (`GET /admin/v1/vault/users`): users by number, their modules with what each may
/// do, and their repos with how many items they hold. No email, name, key or item: those are the users' own.
struct VaultDirectory: Sendable {
    let database: Database

    struct User: Encodable, Sendable {
        var id: Int64
        var modules: [Module]
        var repos: [Repo]
    }

    struct Module: Encodable, Sendable {
        var id: Int64
        var name: String
        var url: String
        var permissions: [Permission]
    }

    struct Permission: Encodable, Sendable {
        var repo: String
        var read: Bool
        var write: Bool
    }

    struct Repo: Encodable, Sendable {
        var id: Int64
        var identifier: String
        var items: Int64
    }

    struct Page: Encodable, Sendable {
        var users: [User]
        /// Pass as `after` for the next page; null on the last one.
        @ExplicitNull var next_after: Int64?
    }

    /// `GET /admin/v1/vault/users?after=ID&limit=100`
    func users(_ input: HTTPInput, context: CallContext) async throws -> Page {
        let after = try input.integerQueryValue("after", default: 0, in: 0...Int64.max)
        let limit = try input.integerQueryValue("limit", default: 100, in: 1...1000)
        var users: [User] = []
        let userRows = try await database.query(
            "SELECT user_id FROM vault.user_keys WHERE user_id > \(after) ORDER BY user_id LIMIT \(limit)", logger: context.logger)
        for try await id in userRows.decode(Int64.self) {
            users.append(User(id: id, modules: [], repos: []))
        }
        guard !users.isEmpty else { return Page(users: [], next_after: nil) }
        let ids = users.map(\.id)
        let index = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })

        let repoRows = try await database.query(
            """
            SELECT r.user_id, r.id, r.identifier, (SELECT count(*) FROM vault.items i WHERE i.repo_id = r.id)
            FROM vault.repos r WHERE r.user_id = ANY(\(ids)) ORDER BY r.user_id, r.identifier
            """, logger: context.logger)
        for try await (user, id, identifier, items) in repoRows.decode((Int64, Int64, String, Int64).self) {
            if let position = index[user] { users[position].repos.append(Repo(id: id, identifier: identifier, items: items)) }
        }
        let moduleRows = try await database.query(
            """
            SELECT m.user_id, m.id, m.name, m.url, r.identifier, p.can_read, p.can_write
            FROM vault.modules m
            LEFT JOIN vault.permissions p ON p.module_id = m.id
            LEFT JOIN vault.repos r ON r.id = p.repo_id
            WHERE m.user_id = ANY(\(ids)) ORDER BY m.user_id, m.id, r.identifier
            """, logger: context.logger)
        for try await (user, id, name, url, repo, read, write) in moduleRows.decode((Int64, Int64, String, String, String?, Bool?, Bool?).self) {
            guard let position = index[user] else { continue }
            if users[position].modules.last?.id != id {
                users[position].modules.append(Module(id: id, name: name, url: url, permissions: []))
            }
            if let repo {
                let last = users[position].modules.count - 1
                users[position].modules[last].permissions.append(Permission(repo: repo, read: read ?? false, write: write ?? false))
            }
        }
        return Page(users: users, next_after: users.count == limit ? users.last?.id : nil)
    }
}
