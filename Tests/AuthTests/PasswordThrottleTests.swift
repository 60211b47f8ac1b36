import CustodianContracts
import CustodianHTTP
import CustodianRPC
import ServiceTestSupport
import Testing

/// Password guesses against the data vault's login (`POST /oauth/token`) and password change (`POST /api/password`):
/// five failures in a window lock the email for a quarter of an hour, however the guesses arrive.
@Suite("auth: password guesses are throttled per email")
struct PasswordThrottleTests {
    static func login(_ email: String, _ password: String) -> HTTPInput {
        HTTPInput(body: .object(["grant_type": "password", "email": .string(email), "password": .string(password)]))
    }

    static func createUser(_ email: String, password: String, on harness: ServiceHarness) async throws -> Principal {
        let created = try await harness.call(
            AuthMethods.vaultUsersCreate.forwarded,
            HTTPInput(body: .object(["email": .string(email), "name": "Tester", "password": .string(password)])), as: AuthHarness.admin)
        return Principal(kind: .user, id: String(created.id), scopes: ["vault"])
    }

    static let wrong = RPCError(.unauthenticated, reason: "invalid_grant", message: "Invalid email or password")

    @Test func fiveFailuresLockTheEmailEvenForItsPasswordAndNoOtherEmail() async throws {
        try await AuthHarness.run { harness, _ in
            _ = try await Self.createUser("owner@example.org", password: "correct horse", on: harness)
            _ = try await Self.createUser("neighbour@example.org", password: "battery staple", on: harness)
            for _ in 0..<5 {
                #expect(
                    await rpcError { try await harness.call(AuthMethods.oauthToken.forwarded, Self.login("owner@example.org", "guess")) }
                        == Self.wrong)
            }
            // The email is compared normalised: another spelling is the same account.
            let locked = await rpcError {
                try await harness.call(AuthMethods.oauthToken.forwarded, Self.login(" Owner@Example.org", "correct horse"))
            }
            #expect(locked?.code == .tooManyRequests)
            #expect(locked?.message == "Too many failed logins; try again in 15 minutes")
            #expect(locked?.reason == "slow_down")
            #expect((890...900).contains(locked?.retryAfter ?? 0), "Retry-After \(String(describing: locked?.retryAfter))")

            _ = try await harness.call(AuthMethods.oauthToken.forwarded, Self.login("neighbour@example.org", "battery staple"))
            // The lock ends by itself.
            try await harness.database.query("UPDATE auth.login_failures SET locked_until = now() - interval '1 second'", logger: harness.logger)
            _ = try await harness.call(AuthMethods.oauthToken.forwarded, Self.login("owner@example.org", "correct horse"))
        }
    }

    @Test func aSuccessForgivesEarlierFailures() async throws {
        try await AuthHarness.run { harness, _ in
            _ = try await Self.createUser("owner@example.org", password: "correct horse", on: harness)
            for _ in 0..<4 {
                _ = await rpcError { try await harness.call(AuthMethods.oauthToken.forwarded, Self.login("owner@example.org", "guess")) }
            }
            _ = try await harness.call(AuthMethods.oauthToken.forwarded, Self.login("owner@example.org", "correct horse"))
            for _ in 0..<4 {
                #expect(
                    await rpcError { try await harness.call(AuthMethods.oauthToken.forwarded, Self.login("owner@example.org", "guess")) }
                        == Self.wrong)
            }
            #expect(try await harness.scalar("SELECT count(*) FROM auth.login_failures WHERE locked_until > now()", as: Int.self) == 0)
        }
    }

    @Test func parallelGuessesGetFiveChecksAtMost() async throws {
        try await AuthHarness.run { harness, _ in
            // An email nobody has counts too: guessing which emails exist must cost the same.
            let outcomes = try await withThrowingTaskGroup(of: RPCError.Code?.self) { group in
                for _ in 0..<9 {
                    group.addTask {
                        await rpcError { try await harness.call(AuthMethods.oauthToken.forwarded, Self.login("nobody@example.org", "guess")) }?.code
                    }
                }
                return try await group.reduce(into: [RPCError.Code?]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == .unauthenticated }.count == 5, "\(outcomes)")
            #expect(outcomes.filter { $0 == .tooManyRequests }.count == 4, "\(outcomes)")
        }
    }

    @Test func onlyAUserChangesAPassword() async throws {
        try await AuthHarness.run { harness, _ in
            let owner = try await Self.createUser("owner@example.org", password: "correct horse", on: harness)
            let change = HTTPInput(body: .object(["current_password": "correct horse", "new_password": "new password"]))
            // A module of the owner's, whose id happens to be the owner's.
            let module = Principal(kind: .module, id: owner.id, scopes: ["user:\(owner.id)"])
            #expect(
                await rpcError { try await harness.call(AuthMethods.vaultUsersChangePassword.forwarded, change, as: module) }
                    == .forbidden("Only a user can change their password"))
            #expect(
                await rpcError { try await harness.call(AuthMethods.vaultUsersChangePassword.forwarded, change) }
                    == .forbidden("Only a user can change their password"))
        }
    }

    @Test func thePasswordChangeCountsTowardsTheSameLock() async throws {
        try await AuthHarness.run { harness, _ in
            let owner = try await Self.createUser("owner@example.org", password: "correct horse", on: harness)
            let change = HTTPInput(body: .object(["current_password": "guess", "new_password": "new password"]))
            for _ in 0..<5 {
                let refused = await rpcError { try await harness.call(AuthMethods.vaultUsersChangePassword.forwarded, change, as: owner) }
                #expect(refused == .forbidden("The current password is wrong", reason: "wrong_password"))
            }
            let locked = await rpcError { try await harness.call(AuthMethods.oauthToken.forwarded, Self.login("owner@example.org", "correct horse")) }
            #expect(locked?.code == .tooManyRequests)
        }
    }
}
