import AuthService
import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianLemon
import CustodianRPC
import Foundation
import LemonClient
import PostgresNIO
import ServiceTestSupport
import Testing

/// The tracing app's handshake (`POST /api/v1/devices`, docs/lemon.md) as the auth service answers it: its
/// refusals with the messages docs/lemon.md lists, the lockout after failed authentications, and the sweep of old sessions.
@Suite("auth: the tracing app's handshake")
struct LemonHandshakeTests {
    static func body(_ fields: [String: String]) -> HTTPInput {
        HTTPInput(body: .object(fields.mapValues { JSONValue.string($0) }))
    }

    /// Registers `app`; the answer's session checks against the server's signing key.
    @discardableResult
    static func register(_ app: LemonApp, on harness: ServiceHarness, serverKey: ServerKey, pushToken: String? = nil) async throws -> LemonSession {
        let builder = try HandshakeBuilder(serverKey: serverKey.publicKey)
        let answer = try await harness.call(
            AuthMethods.lemonHandshake.forwarded,
            body(try builder.registration(app: app, operatingSystem: "Android", language: "en", pushToken: pushToken)))
        return try builder.session(from: try Self.fields(answer))
    }

    static func authenticate(_ app: LemonApp, on harness: ServiceHarness, serverKey: ServerKey) async throws -> LemonSession {
        let builder = try HandshakeBuilder(serverKey: serverKey.publicKey)
        let answer = try await harness.call(AuthMethods.lemonHandshake.forwarded, body(try builder.authentication(app: app, language: nil)))
        return try builder.session(from: try Self.fields(answer))
    }

    /// The answer's members by their names on the wire.
    static func fields(_ answer: HandshakeResponse) throws -> [String: String] {
        guard case .object(let members) = try JSONValueEncoder().encode(answer) else { throw HarnessError("the handshake answered \(answer)") }
        return members.compactMapValues { if case .string(let text) = $0 { text } else { nil } }
    }

    /// An authentication body signed by another key than the registered one.
    static func forgedAuthentication(of app: LemonApp, serverKey: ServerKey) throws -> HTTPInput {
        let impostor = LemonApp(appId: app.appId, privateKey: .init())
        return body(try HandshakeBuilder(serverKey: serverKey.publicKey).authentication(app: impostor, language: nil))
    }

    @Test func registrationsAndAuthenticationsAreRefusedWithTheDocumentsMessages() async throws {
        try await AuthHarness.run { harness, serverKey in
            let app = LemonApp.generate()
            let builder = try HandshakeBuilder(serverKey: serverKey.publicKey)
            func refusal(_ fields: [String: String]) async -> RPCError? {
                await rpcError { try await harness.call(AuthMethods.lemonHandshake.forwarded, Self.body(fields)) }
            }
            var fields = try builder.registration(app: app, operatingSystem: "Android", language: "en", pushToken: nil)

            fields["OperatingSystem"] = "Symbian"
            #expect(await refusal(fields) == .badRequest("Invalid operating system: must be IOS or Android"))
            fields = try builder.registration(app: app, operatingSystem: "Android", language: "xx", pushToken: nil)
            #expect(await refusal(fields) == .badRequest("Invalid alpha2 (language)"))
            fields = try builder.registration(app: app, operatingSystem: "Android", language: "en", pushToken: nil)
            fields["PreMasterSecret"] = Data(repeating: 7, count: 384).base64EncodedString()
            #expect(await refusal(fields) == .unauthenticated("Invalid pre-master-secret"))
            fields = try builder.registration(app: app, operatingSystem: "Android", language: "en", pushToken: nil)
            fields["Seed"] = Data(repeating: 1, count: 32).base64EncodedString()
            #expect(await refusal(fields) == .unauthenticated("Signature verification fails (does not match provided public key)"))
            var unknown = try builder.authentication(app: app, language: nil)
            #expect(await refusal(unknown) == .unauthenticated("Unknown app instance"))
            // Nothing of the refused attempts was stored.
            #expect(try await harness.scalar("SELECT count(*) FROM auth.lemon_apps", as: Int.self) == 0)

            try await Self.register(app, on: harness, serverKey: serverKey, pushToken: "push-1")
            #expect(
                await refusal(try builder.registration(app: app, operatingSystem: "Android", language: "en", pushToken: nil))
                    == .unauthenticated("Hashed App Instance ID already exists in database"))
            unknown = try builder.authentication(app: app, language: nil)
            unknown["PushToken"] = "push-2"
            #expect(await refusal(unknown) == .unauthenticated("Push token, public key or operating system was included in the call"))
            let other = LemonApp.generate()
            #expect(
                await refusal(try builder.registration(app: other, operatingSystem: "IOS", language: "en", pushToken: "push-1"))
                    == .unauthenticated("Push token already exists in database"))
            // The app's id is kept only as its SHA-256.
            let hashed = try await harness.scalar(
                "SELECT count(*) FROM auth.lemon_apps WHERE app_id_hash = sha256(convert_to(\(app.appId), 'UTF8'))", as: Int.self)
            #expect(hashed == 1)
        }
    }

    @Test func threeFailedAuthenticationsLockAnAppOutEvenWithItsOwnKey() async throws {
        try await AuthHarness.run { harness, serverKey in
            let app = LemonApp.generate()
            try await Self.register(app, on: harness, serverKey: serverKey)
            let forged = try Self.forgedAuthentication(of: app, serverKey: serverKey)
            for _ in 0..<2 {
                #expect(
                    await rpcError { try await harness.call(AuthMethods.lemonHandshake.forwarded, forged) }
                        == .unauthenticated("Signature verification failed")
                )
            }
            // Two failures are forgiven by a success, which resets the count.
            _ = try await Self.authenticate(app, on: harness, serverKey: serverKey)
            for _ in 0..<3 {
                #expect(
                    await rpcError { try await harness.call(AuthMethods.lemonHandshake.forwarded, forged) }
                        == .unauthenticated("Signature verification failed")
                )
            }
            let locked = await rpcError { try await Self.authenticate(app, on: harness, serverKey: serverKey) }
            #expect(locked == .unauthenticated("App is locked-out"))
            // The lock ends by itself.
            let until = try await harness.scalar("SELECT extract(epoch FROM max(locked_until) - now())::integer FROM auth.lemon_apps", as: Int.self)
            #expect((590...600).contains(until ?? 0), "locked for \(String(describing: until)) s")
            try await harness.database.query("UPDATE auth.lemon_apps SET locked_until = now() - interval '1 second'", logger: harness.logger)
            _ = try await Self.authenticate(app, on: harness, serverKey: serverKey)
        }
    }

    @Test func parallelGuessesCountOneByOne() async throws {
        try await AuthHarness.run { harness, serverKey in
            let app = LemonApp.generate()
            try await Self.register(app, on: harness, serverKey: serverKey)
            let forged = try Self.forgedAuthentication(of: app, serverKey: serverKey)
            let messages = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<6 {
                    group.addTask { await rpcError { try await harness.call(AuthMethods.lemonHandshake.forwarded, forged) }?.message }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            // Three guesses are checked, whatever the order; the rest meet the lock.
            #expect(messages.filter { $0 == "Signature verification failed" }.count == 3, "\(messages)")
            #expect(messages.filter { $0 == "App is locked-out" }.count == 3, "\(messages)")
        }
    }

    @Test func aHandshakeSweepsSessionsThatEndedMoreThanADayAgo() async throws {
        try await AuthHarness.run { harness, serverKey in
            let app = LemonApp.generate()
            try await Self.register(app, on: harness, serverKey: serverKey)
            _ = try await Self.authenticate(app, on: harness, serverKey: serverKey)
            #expect(try await harness.scalar("SELECT count(*) FROM auth.lemon_sessions", as: Int.self) == 2)
            try await harness.database.query(
                """
                UPDATE auth.lemon_sessions SET expires_at = CASE WHEN id = (SELECT id FROM auth.lemon_sessions ORDER BY created_at LIMIT 1)
                    THEN now() - interval '25 hours' ELSE now() - interval '23 hours' END
                """, logger: harness.logger)
            _ = try await Self.authenticate(app, on: harness, serverKey: serverKey)
            // The one ended 25 hours ago is gone; the one ended 23 hours ago stays (a clock a little off must not
            // end a session early), and the new one is there.
            #expect(try await harness.scalar("SELECT count(*) FROM auth.lemon_sessions", as: Int.self) == 2)
            #expect(
                try await harness.scalar("SELECT count(*) FROM auth.lemon_sessions WHERE expires_at < now() - interval '1 day'", as: Int.self) == 0)
        }
    }
}
