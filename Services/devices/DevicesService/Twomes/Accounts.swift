import CustodianContracts
import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import PostgresNIO

/// Twomes accounts: created by a researcher with a pseudonym, activated from the app with a one-time token.
struct Accounts: Sendable {
    let database: Database
    let services: RPCClient
    let activationLifetime: Duration
    /// The links template the `firebase_url` is made from (`twomes-short-link`, this platform's own short link, by
    /// default; `twomes-account` is the Firebase link of the seed).
    let linkTemplate: String

    func create(_ request: CreateAccountRequest, context: CallContext) async throws -> CreateAccountResponse {

        // The link first: if links is down nothing is written and the researcher simply retries.
        let activation = try await mint(context: context)
        let logger = context.logger
        let created: (id: Int64, pseudonym: Int)
        created = try await database.withTransaction(logger: logger) { connection in
            let account = try await insertAccount(
                connection, pseudonym: request.pseudonym, activation: activation, synthetic: context.createsSynthetic, logger: logger)
            try await insertBuilding(connection, account: account.id, request, logger: logger)
            return account
        }
        return CreateAccountResponse(
            id: created.id, pseudonym: created.pseudonym, activation_token: activation.token, firebase_url: activation.link.url)
    }

    /// A new activation token and its link, made by `links`; the token is stored only as its hash.
    struct Activation: Sendable {
        var token: String
        var link: ActivationLink
        var expiresAt: Date

        var tokenHash: Data { SecretToken.hash(token) }

        func issued(to pseudonym: Int) -> IssuedActivation {
            IssuedActivation(
                pseudonym: pseudonym, activation_token: token, firebase_url: link.url, activation_expires_at: TwomesTime.render(expiresAt))
        }
    }

    func mint(context: CallContext) async throws -> Activation {
        let token = SecretToken.generate()
        let link = try await services.call(
            LinksMethods.activationMint,
            input: MintActivationLinkInput(
                kind: "account", token: token, template: linkTemplate, lifetimeSeconds: Int(activationLifetime.components.seconds)),
            context: context)
        return Activation(token: token, link: link, expiresAt: Date().addingTimeInterval(activationLifetime.seconds))
    }

    func insertBuilding(_ connection: DatabaseConnection, account: Int64, _ request: CreateAccountRequest, logger: Logger) async throws {
        // Coarse on purpose: two decimals are about a kilometre, never a street address.
        let latitude = (request.location.latitude * 100).rounded() / 100
        let longitude = (request.location.longitude * 100).rounded() / 100
        let timezone = request.timezone
        try await connection.query(
            """
            INSERT INTO devices.buildings (account_id, latitude, longitude, tz_name)
            VALUES (\(account), \(latitude), \(longitude), \(timezone))
            """, logger: logger)
    }

    func insertAccount(
        _ connection: DatabaseConnection, pseudonym: Int?, activation: Activation, synthetic: Bool, logger: Logger
    ) async throws -> (id: Int64, pseudonym: Int) {
        let tokenHash = activation.tokenHash, expiresAt = activation.expiresAt, linkCode = activation.link.code
        if let pseudonym {
            let rows = try await connection.query(
                """
                INSERT INTO devices.accounts (pseudonym, activation_token_hash, activation_expires_at, link_code, synthetic)
                VALUES (\(pseudonym), \(tokenHash), \(expiresAt), \(linkCode), \(synthetic))
                ON CONFLICT (pseudonym) DO NOTHING RETURNING id
                """, logger: logger)
            for try await id in rows.decode(Int64.self) { return (id, pseudonym) }
            throw RPCError.badRequest("Account pseudonym already in use", reason: "pseudonym_in_use")
        }
        // A random free pseudonym; a concurrent creator may take the same one, so try again.
        for _ in 0..<5 {
            let rows = try await connection.query(
                """
                INSERT INTO devices.accounts (pseudonym, activation_token_hash, activation_expires_at, link_code, synthetic)
                SELECT candidate, \(tokenHash), \(expiresAt), \(linkCode), \(synthetic) FROM generate_series(800000, 899999) AS candidate
                WHERE NOT EXISTS (SELECT 1 FROM devices.accounts WHERE pseudonym = candidate)
                ORDER BY random() LIMIT 1
                ON CONFLICT (pseudonym) DO NOTHING RETURNING id, pseudonym
                """, logger: logger)
            for try await (id, chosen) in rows.decode((Int64, Int).self) { return (id, chosen) }
        }
        throw RPCError(.conflict, reason: "no_free_pseudonym", message: "No free pseudonym is left")
    }

    /// Step C4–C8: a new session token for the app; the activation token keeps working until the session
    /// token is first used.
    func activate(_ request: AccountActivation, context: CallContext) async throws -> SessionToken {
        let sessionToken = SecretToken.generate()
        let rows = try await database.query(
            """
            UPDATE devices.accounts
            SET session_token_hash = \(SecretToken.hash(sessionToken)), activated_on = now()
            WHERE activation_token_hash = \(SecretToken.hash(request.activationToken))
              AND (activation_expires_at IS NULL OR activation_expires_at > now())
            RETURNING id
            """, logger: context.logger)
        for try await _ in rows.decode(Int64.self) { return SessionToken(session_token: sessionToken) }
        throw RPCError.notFound("No account found for provided activation token", reason: "activation_token_not_found")
    }
}
