import CustodianContracts
import CustodianJSON
import CustodianRPC
import CustodianRuntime
import Foundation
import PostgresNIO

/// What an operator sees of the vault (`GET /admin/v1/vault/users`): users by number, their modules with what each may
/// do, and their repos with how many items they hold. No email, name, key or item: those are the users' own.
struct VaultDirectory: Sendable {
    let database: Database

    /// `GET /admin/v1/vault/users?after=ID&limit=100`
    func users(_ input: VaultUsersQuery, context: CallContext) async throws -> VaultUsersPage {
        let (after, limit, synthetic) = (input.after, input.limit, input.synthetic.wanted)
        var users: [VaultUsersPage.User] = []
        let userRows = try await database.query(
            """
            SELECT user_id FROM vault.user_keys WHERE user_id > \(after) AND (\(synthetic)::boolean IS NULL OR synthetic = \(synthetic))
            ORDER BY user_id LIMIT \(limit)
            """, logger: context.logger)
        for try await id in userRows.decode(Int64.self) {
            users.append(VaultUsersPage.User(id: id))
        }
        guard !users.isEmpty else { return VaultUsersPage(users: [], next_after: nil) }
        let ids = users.map(\.id)
        let index = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })

        let repoRows = try await database.query(
            """
            SELECT r.user_id, r.id, r.identifier, (SELECT count(*) FROM vault.items i WHERE i.repo_id = r.id)
            FROM vault.repos r WHERE r.user_id = ANY(\(ids)) ORDER BY r.user_id, r.identifier
            """, logger: context.logger)
        for try await (user, id, identifier, items) in repoRows.decode((Int64, Int64, String, Int64).self) {
            if let position = index[user] { users[position].repos.append(VaultUsersPage.Repo(id: id, identifier: identifier, items: items)) }
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
                users[position].modules.append(VaultUsersPage.Module(id: id, name: name, url: url))
            }
            if let repo {
                let last = users[position].modules.count - 1
                users[position].modules[last].permissions.append(VaultUsersPage.Permission(repo: repo, read: read ?? false, write: write ?? false))
            }
        }
        return VaultUsersPage(users: users, next_after: users.count == limit ? users.last?.id : nil)
    }
}
