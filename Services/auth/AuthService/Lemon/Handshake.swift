import CustodianContracts
import Crypto
import CustodianHTTP
import CustodianLemon
import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import PostgresNIO

/// The tracing app's `POST /api/v1/devices`: registers a new app instance or authenticates a known one, and
/// opens a session whose keys both sides derive (docs/lemon.md). App instance ids are stored only hashed.
struct Handshake: Sendable {
    let database: Database
    let services: RPCClient
    let serverKeys: [ServerKey]
    let sessions: LemonSessions
    let tokens: TokenIssuer

    static let failuresBeforeLockout = 3
    static let lockout: TimeInterval = 600

    func run(_ request: LemonHandshakeRequest, context: CallContext) async throws -> HandshakeResponse {
        let appHash = Data(SHA256.hash(data: Data(request.appId.utf8)))
        if let language = request.language { try await checkSupported(language: language, context: context) }

        let known = try await appRow(hash: appHash, logger: context.logger)
        let app: Int64
        let deviceId: String
        let preMasterSecret: [UInt8]
        if let known {
            if request.publicKey != nil, request.operatingSystem != nil {
                throw RPCError.unauthenticated("Hashed App Instance ID already exists in database")
            }
            if request.hasRegistrationFields {
                throw RPCError.unauthenticated("Push token, public key or operating system was included in the call")
            }
            app = known.id
            deviceId = known.deviceId
            preMasterSecret = try await authenticate(app: app, request: request, context: context)
        } else {
            guard request.publicKey != nil else { throw RPCError.unauthenticated("Unknown app instance") }
            (app, deviceId, preMasterSecret) = try await register(request, hash: appHash, context: context)
        }
        return try await openSession(app: app, deviceId: deviceId, request: request, preMasterSecret: preMasterSecret, context: context)
    }

    // MARK: Registration

    private func register(_ request: LemonHandshakeRequest, hash: Data, context: CallContext) async throws -> (Int64, String, [UInt8]) {
        guard let operatingSystemText = request.operatingSystem, let operatingSystem = LemonHandshakeRequest.operatingSystem(operatingSystemText)
        else {
            throw RPCError.badRequest("Invalid operating system: must be IOS or Android")
        }
        guard let language = request.language else { throw RPCError.badRequest("Invalid alpha2 (language)") }
        guard let publicKeyText = request.publicKey, let publicKey = HandshakeSignature.publicKey(publicKeyText) else {
            throw RPCError.unauthenticated("Invalid public key")
        }
        // A registration proves key possession before anything is stored.
        guard let secret = openPreMasterSecret(request.preMasterSecret) else { throw RPCError.unauthenticated("Invalid pre-master-secret") }
        guard let signature = HandshakeSignature.parse(request.signature) else { throw RPCError.unauthenticated("Invalid signature") }
        let signed = HandshakeSignature.registration(
            appId: request.appId, publicKey: publicKeyText, operatingSystem: operatingSystemText, pushToken: request.pushToken,
            language: language, seed: request.seed, preMasterSecret: request.preMasterSecret)
        guard publicKey.isValidSignature(signature, for: signed) else {
            throw RPCError.unauthenticated("Signature verification fails (does not match provided public key)")
        }
        let keyBytes = publicKey.derRepresentation
        let pushToken = request.pushToken
        let language_ = language.lowercased()
        do {
            let rows = try await database.query(
                """
                INSERT INTO auth.lemon_apps (app_id_hash, public_key, operating_system, language, push_token, synthetic)
                VALUES (\(hash), \(keyBytes), \(operatingSystem), \(language_), \(pushToken), \(context.createsSynthetic))
                RETURNING id, device_id::text
                """, logger: context.logger)
            for try await (id, deviceId) in rows.decode((Int64, String).self) {
                context.logger.info("lemon app registered", metadata: ["device": .string(deviceId)])
                if context.createsSynthetic { try await markSynthetic(app: id, deviceId: deviceId, context: context) }
                return (id, deviceId, secret)
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            // Two registrations raced, or the push token is another app's.
            if error.serverInfo?[.constraintName]?.contains("push_token") == true {
                throw RPCError.unauthenticated("Push token already exists in database")
            }
            throw RPCError.unauthenticated("Hashed App Instance ID already exists in database")
        }
        throw RPCError.internal("the registration returned no row")
    }

    /// Tells statistics that this instance's submissions are synthetic; without that, no instance (it would mix test
    /// submissions into the researchers' counts).
    private func markSynthetic(app: Int64, deviceId: String, context: CallContext) async throws {
        do {
            _ = try await services.call(StatisticsMethods.deviceMarkSynthetic, input: ForgetDeviceInput(deviceId: deviceId), context: context)
        } catch {
            _ = try? await database.query("DELETE FROM auth.lemon_apps WHERE id = \(app)", logger: context.logger)
            throw error
        }
    }

    // MARK: Authentication

    private enum Outcome: Sendable {
        case authenticated([UInt8])
        case refused(String)
    }

    /// Checks the handshake's proofs under a row lock, so that parallel guesses count one by one and the
    /// lockout holds across replicas; a failure is committed before it is reported.
    private func authenticate(app: Int64, request: LemonHandshakeRequest, context: CallContext) async throws -> [UInt8] {
        let logger = context.logger
        let outcome: Outcome
        outcome = try await database.withTransaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                SELECT public_key, deactivated_at IS NOT NULL, coalesce(locked_until > now(), false)
                FROM auth.lemon_apps WHERE id = \(app) FOR UPDATE
                """, logger: logger)
            var found: (Data, Bool, Bool)?
            for try await row in rows.decode((Data, Bool, Bool).self) { found = row }
            guard let (keyBytes, deactivated, locked) = found else { return .refused("Unknown app instance") }
            if locked { return .refused("App is locked-out") }
            if deactivated { return .refused("App is deactivated") }

            let (secret, problem) = verify(request, storedKey: keyBytes)
            if let problem {
                try await connection.query(
                    """
                    UPDATE auth.lemon_apps SET
                        locked_until = CASE WHEN failures + 1 >= \(Self.failuresBeforeLockout)
                            THEN now() + make_interval(secs => \(Self.lockout)) ELSE locked_until END,
                        failures = CASE WHEN failures + 1 >= \(Self.failuresBeforeLockout) THEN 0 ELSE failures + 1 END
                    WHERE id = \(app)
                    """, logger: logger)
                return .refused(problem)
            }
            let language = request.language?.lowercased()
            try await connection.query(
                """
                UPDATE auth.lemon_apps SET failures = 0, locked_until = NULL, last_authenticated_at = now(),
                    language = coalesce(\(language), language)
                WHERE id = \(app)
                """, logger: logger)
            return .authenticated(secret ?? [])
        }
        switch outcome {
        case .authenticated(let secret):
            return secret
        case .refused(let message):
            context.logger.notice("lemon authentication refused", metadata: ["app": .stringConvertible(app), "reason": .string(message)])
            throw RPCError.unauthenticated(message)
        }
    }

    private func verify(_ request: LemonHandshakeRequest, storedKey: Data) -> ([UInt8]?, String?) {
        guard let secret = openPreMasterSecret(request.preMasterSecret) else { return (nil, "Invalid pre-master-secret") }
        guard let signature = HandshakeSignature.parse(request.signature) else { return (nil, "Invalid signature structure") }
        guard let key = try? P256.Signing.PublicKey(derRepresentation: storedKey) else { return (nil, "Signature verification failed") }
        let signed = HandshakeSignature.authentication(
            appId: request.appId, language: request.language, seed: request.seed, preMasterSecret: request.preMasterSecret)
        guard key.isValidSignature(signature, for: signed) else { return (nil, "Signature verification failed") }
        return (secret, nil)
    }

    /// Tries every key generation still accepted, so apps that pinned an older one keep working.
    private func openPreMasterSecret(_ base64: String) -> [UInt8]? {
        guard let ciphertext = Data(base64Encoded: base64), !ciphertext.isEmpty else { return nil }
        for key in serverKeys {
            if let secret = key.decryptPreMasterSecret(ciphertext) { return secret }
        }
        return nil
    }

    // MARK: Session

    private func openSession(
        app: Int64, deviceId: String, request: LemonHandshakeRequest, preMasterSecret: [UInt8],
        context: CallContext
    ) async throws -> HandshakeResponse {
        let serverSeed = (0..<SessionKeys.seedLength).map { _ in UInt8.random(in: .min ... .max) }
        let keys = SessionKeys.derive(preMasterSecret: preMasterSecret, clientSeed: request.seedBytes, serverSeed: serverSeed)
        let session = try await sessions.open(app: app, keys: keys, lifetime: LemonSessions.lifetime, logger: context.logger)
        let (token, claims) = try await tokens.issue(
            subject: deviceId, kind: "app", session: session, scopes: [], lifetime: LemonSessions.lifetime, logger: context.logger)
        let serverSeedText = Data(serverSeed).base64EncodedString()
        let signingKey = serverKeys[0]
        let signature = try signingKey.sign(HandshakeSignature.server(accessToken: token, clientSeed: request.seed, serverSeed: serverSeedText))
        return HandshakeResponse(
            accessToken: token, accessTokenExpiry: HandshakeResponse.expiryText(claims.exp.value), seed: serverSeedText,
            signature: signature, keyId: signingKey.id)
    }

    private func appRow(hash: Data, logger: Logger) async throws -> (id: Int64, deviceId: String)? {
        let rows = try await database.query(
            "SELECT id, device_id::text FROM auth.lemon_apps WHERE app_id_hash = \(hash)", logger: logger)
        for try await (id, deviceId) in rows.decode((Int64, String).self) { return (id, deviceId) }
        return nil
    }

    /// Languages are the statistics service's reference data; one it does not serve is refused as the
    /// document says, "Invalid alpha2 (language)".
    private func checkSupported(language: String, context: CallContext) async throws {
        let answer = try await services.call(StatisticsMethods.languagesSupported, input: LanguageQuery(language: language), context: context)
        guard answer.supported else { throw RPCError.badRequest("Invalid alpha2 (language)") }
    }
}
