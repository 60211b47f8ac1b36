@testable import AuthService
import CustodianHTTP
import CustodianJSON
import CustodianContracts
import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import PostgresNIO
import ServiceTestSupport
import Testing

/// Admin identities: a scope and a label per token, who made it, an expiry, revocation; tokens kept only as hashes.
@Suite("Admin identities")
struct AdminIdentityTests {
    static let owner = Principal(kind: .admin, id: "00000000-0000-0000-0000-000000000001", scopes: ["owner"], name: "test owner")

    @Test func anOwnerCreatesAnIdentityWhoseTokenAuthenticatesWithItsScopeAndLabel() async throws {
        try await AuthHarness.run { harness, _ in
            let created = try await harness.call(
                AuthMethods.tokensCreate, CreateAdminToken(label: "Ana", scope: .researcher, expiresIn: 3600), as: Self.owner)
            #expect(created.identity.scope == .researcher && created.identity.label == "Ana" && created.identity.created_by == "test owner")
            #expect(created.identity.expires_at != nil && created.identity.revoked_at == nil)
            let principal = try await harness.call(AuthMethods.adminAuthenticate, TokenInput(token: created.token))
            #expect(principal == Principal(kind: .admin, id: created.identity.id, scopes: ["researcher"], name: "Ana"))
            // Only the hash is stored: no column of the row holds the token.
            let holding = try await harness.scalar(
                "SELECT count(*) FROM auth.admin_tokens t WHERE strpos(t::text, \(created.token)) > 0", as: Int.self)
            #expect(holding == 0)
            let hashed = try await harness.scalar(
                "SELECT count(*) FROM auth.admin_tokens WHERE token_hash = \(SecretToken.hash(created.token))", as: Int.self)
            #expect(hashed == 1)
            // Using it is noted (to the minute).
            let listed = try await harness.call(AuthMethods.tokensList, NoInput(), as: Self.owner).identities.first { $0.id == created.identity.id }
            #expect(listed?.last_used_at != nil)
        }
    }

    @Test func aRevokedOrExpiredTokenNoLongerAuthenticates() async throws {
        try await AuthHarness.run { harness, _ in
            let revoked = try await harness.call(AuthMethods.tokensCreate, CreateAdminToken(label: "leaving", scope: .operator), as: Self.owner)
            let expiring = try await harness.call(
                AuthMethods.tokensCreate, CreateAdminToken(label: "short", scope: .owner, expiresIn: 1), as: Self.owner)
            _ = try await harness.call(AuthMethods.adminAuthenticate, TokenInput(token: revoked.token))
            let answer = try await harness.call(
                AuthMethods.tokensRevoke, AdminIdentityByID(id: try #require(UUID(uuidString: revoked.identity.id))), as: Self.owner)
            #expect(answer.revoked_at != nil)
            let refused = await rpcError { try await harness.call(AuthMethods.adminAuthenticate, TokenInput(token: revoked.token)) }
            #expect(refused?.code == .unauthenticated && refused?.reason == "invalid_admin_token")
            try await Task.sleep(for: .milliseconds(1200))
            let expired = await rpcError { try await harness.call(AuthMethods.adminAuthenticate, TokenInput(token: expiring.token)) }
            #expect(expired?.code == .unauthenticated)
            let unknown = await rpcError { try await harness.call(AuthMethods.tokensRevoke, AdminIdentityByID(id: UUID()), as: Self.owner) }
            #expect(unknown?.code == .notFound)
        }
    }

    @Test func aBadRequestForAnIdentityIsA422InTheAdminAPIsWords() async throws {
        try await AuthHarness.run { harness, _ in
            for (body, message) in [
                (#"{"label":"x","scope":"root"}"#, "scope: scope must be researcher, operator or owner"),
                (#"{"label":"","scope":"owner"}"#, "label: a label has 1 to 100 characters and no control characters"),
                (#"{"label":"x","scope":"owner","expires_in":0}"#, "expires_in: expires_in is seconds from 1 to 315360000"),
                (#"{"scope":"owner"}"#, "label: field required"),
            ] {
                let input = HTTPInputFixture.body(body)
                let error = await rpcError { try await harness.call(AuthMethods.tokensCreate.forwarded, input, as: Self.owner) }
                #expect(error?.code == .unprocessable && error?.message == message, "\(body): \(String(describing: error))")
            }
        }
    }

    /// Tokens made before scopes existed were all-powerful: after the migration they are owners, and keep working.
    @Test func existingTokensBecomeOwnersInTheMigration() async throws {
        let logger = Logger(label: "identity-migration")
        let (admin, _) = try await TestPostgres.shared.makeDatabase(for: ["auth"], logger: logger)
        try await PostgresClient.withClient(url: admin, poolSize: 1, logger: logger) { client in
            let role = DatabaseProvisioner.role(for: "auth")
            try await MigrationRunner(schema: "auth", migrations: AuthService.migrations.filter { $0.version < 6 }).run(
                on: client, as: role, logger: logger)
            try await client.query(
                "INSERT INTO auth.admin_tokens (token_hash, label) VALUES (\(SecretToken.hash("old-token")), 'before scopes')", logger: logger)
            try await MigrationRunner(schema: "auth", migrations: AuthService.migrations).run(on: client, as: role, logger: logger)
            let principal = try await AdminTokens(database: Database(client: client)).authenticate("old-token", logger: logger)
            #expect(principal.scopes == ["owner"] && principal.name == "before scopes")
        }
    }
}

enum HTTPInputFixture {
    static func body(_ json: String) -> HTTPInput {
        HTTPInput(body: (try? JSONValue.parse(Data(json.utf8))) ?? .null)
    }
}
