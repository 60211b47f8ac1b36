import CustodianContracts
import CustodianRPC
import CustodianRuntime
import Foundation
import Logging
import PostgresNIO

/// Many accounts at once, and a new activation link for an account whose link expired (docs/admin.md, "Cohorts").
extension Accounts {
    /// Links minted at once while a cohort is made: enough to hide the calls' latency, few enough to leave `links` free.
    static let concurrentMints = 8

    /// `POST /admin/v1/accounts/cohort`: every account's link from `links` first, then every account in one transaction.
    /// When anything fails, nothing is stored and the links minted for the cohort are revoked (best effort: a link left
    /// behind opens the app with a token that activates nothing).
    func cohort(_ request: CohortRequest, context: CallContext) async throws -> CohortAccounts {
        let logger = context.logger
        var minted: [Activation] = []
        do {
            minted = try await mintAll(request.entries.count, context: context)
            let activations = minted
            let created = try await database.withTransaction(logger: logger) { connection in
                var free = try await freePseudonyms(connection, count: request.entries.filter { $0.account.pseudonym == nil }.count, logger: logger)
                var issued: [IssuedActivation] = []
                for (entry, activation) in zip(request.entries, activations) {
                    let account = try await insertCohortAccount(connection, entry, free: &free, activation: activation, context: context)
                    try await insertBuilding(connection, account: account.id, entry.account, logger: logger)
                    issued.append(activation.issued(to: account.pseudonym))
                }
                return issued
            }
            logger.notice(
                "Twomes cohort created", metadata: ["accounts": .stringConvertible(created.count), "admin": .string(context.principal?.id ?? "-")])
            return CohortAccounts(accounts: created)
        } catch {
            await revoke(minted.compactMap(\.link.code), context: context)
            throw error
        }
    }

    /// One account of a cohort: its pseudonym, or one of the free ones picked for the cohort (another creator may have
    /// taken it meanwhile: then any free one).
    private func insertCohortAccount(
        _ connection: DatabaseConnection, _ entry: CohortRequest.Entry, free: inout [Int], activation: Activation, context: CallContext
    ) async throws -> (id: Int64, pseudonym: Int) {
        let synthetic = context.createsSynthetic
        guard let pseudonym = entry.account.pseudonym else {
            if let candidate = free.popLast(),
                let account = try await insertIfFree(
                    connection, pseudonym: candidate, activation: activation, synthetic: synthetic, logger: context.logger)
            {
                return account
            }
            return try await insertAccount(connection, pseudonym: nil, activation: activation, synthetic: synthetic, logger: context.logger)
        }
        guard
            let account = try await insertIfFree(
                connection, pseudonym: pseudonym, activation: activation, synthetic: synthetic, logger: context.logger)
        else {
            throw entry.place.problem("pseudonym", "pseudonym \(pseudonym) is already in use")
        }
        return account
    }

    private func insertIfFree(
        _ connection: DatabaseConnection, pseudonym: Int, activation: Activation, synthetic: Bool, logger: Logger
    ) async throws -> (id: Int64, pseudonym: Int)? {
        do {
            return try await insertAccount(connection, pseudonym: pseudonym, activation: activation, synthetic: synthetic, logger: logger)
        } catch let error as RPCError where error.reason == "pseudonym_in_use" {
            return nil
        }
    }

    /// `count` free pseudonyms, picked at random in one statement rather than one at a time.
    private func freePseudonyms(_ connection: DatabaseConnection, count: Int, logger: Logger) async throws -> [Int] {
        guard count > 0 else { return [] }
        let low = CreateAccountRequest.pseudonymRange.lowerBound, high = CreateAccountRequest.pseudonymRange.upperBound
        let rows = try await connection.query(
            """
            SELECT candidate FROM generate_series(\(low), \(high)) AS candidate
            WHERE NOT EXISTS (SELECT 1 FROM devices.accounts WHERE pseudonym = candidate)
            ORDER BY random() LIMIT \(count)
            """, logger: logger)
        var free: [Int] = []
        for try await candidate in rows.decode(Int.self) { free.append(candidate) }
        return free
    }

    /// `count` activation links, a few at a time; when one cannot be minted, those that were are revoked.
    private func mintAll(_ count: Int, context: CallContext) async throws -> [Activation] {
        var minted: [Int: Activation] = [:]
        do {
            try await withThrowingTaskGroup(of: (Int, Activation).self) { group in
                var next = 0
                while next < count || !group.isEmpty {
                    while next < count, next - minted.count < Self.concurrentMints {
                        let index = next
                        group.addTask { (index, try await mint(context: context)) }
                        next += 1
                    }
                    if let (index, activation) = try await group.next() { minted[index] = activation }
                }
            }
        } catch {
            await revoke(minted.values.compactMap(\.link.code), context: context)
            throw error
        }
        return (0..<count).compactMap { minted[$0] }
    }

    /// Revokes short links, best effort: a failure is logged, not thrown (the caller is already failing, or done).
    func revoke(_ codes: [String], context: CallContext) async {
        for code in codes {
            do {
                _ = try await services.call(LinksMethods.shortRevoke, input: ShortLinkRevocation(code: code), context: context)
            } catch {
                context.logger.warning(
                    "activation link not revoked", metadata: ["code": .string(code), "error": .string(String(describing: error))])
            }
        }
    }

    /// `POST /admin/v1/accounts/{pseudonym}/activation`: a new token and link for an account not activated yet. The new
    /// token's hash replaces the old one's, so the old token (and its link, which is revoked) stops working at once.
    func reissue(_ request: AccountByPseudonym, context: CallContext) async throws -> IssuedActivation {
        let pseudonym = request.pseudonym
        let logger = context.logger
        try await checkReissuable(pseudonym, logger: logger)
        let activation = try await mint(context: context)
        let tokenHash = activation.tokenHash, expiresAt = activation.expiresAt, code = activation.link.code
        let rows = try await database.query(
            """
            WITH old AS (
                SELECT id, link_code FROM devices.accounts WHERE pseudonym = \(pseudonym) AND activated_on IS NULL FOR UPDATE)
            UPDATE devices.accounts a
            SET activation_token_hash = \(tokenHash), activation_expires_at = \(expiresAt), link_code = \(code)
            FROM old WHERE a.id = old.id
            RETURNING old.link_code
            """, logger: logger)
        var replaced: String??
        for try await oldCode in rows.decode(String?.self) { replaced = .some(oldCode) }
        guard let oldCode = replaced else {
            // Activated or erased since the check: the new link leads nowhere.
            await revoke(code.map { [$0] } ?? [], context: context)
            try await checkReissuable(pseudonym, logger: logger)
            throw RPCError(.conflict, reason: "already_activated", message: "Account \(pseudonym) is activated already")
        }
        await revoke(oldCode.map { [$0] } ?? [], context: context)
        logger.notice(
            "Twomes activation link re-issued",
            metadata: ["pseudonym": .stringConvertible(pseudonym), "admin": .string(context.principal?.id ?? "-")])
        return activation.issued(to: pseudonym)
    }

    /// 404 for an unknown pseudonym, 409 for an account activated already.
    private func checkReissuable(_ pseudonym: Int, logger: Logger) async throws {
        let rows = try await database.query("SELECT activated_on IS NOT NULL FROM devices.accounts WHERE pseudonym = \(pseudonym)", logger: logger)
        for try await activated in rows.decode(Bool.self) {
            guard !activated else {
                throw RPCError(.conflict, reason: "already_activated", message: "Account \(pseudonym) is activated already")
            }
            return
        }
        throw RPCError.notFound("Account \(pseudonym) not found", reason: "account_not_found")
    }
}
