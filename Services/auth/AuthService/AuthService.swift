import CustodianAudit
import CustodianContracts
import CustodianHTTP
import CustodianJWT
import CustodianLemon
import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import Foundation
import JWTKit

/// Identities and sessions: researcher/admin tokens, the access-token signing keys the gateway verifies with,
/// the vault's users, and the tracing app's instances with their handshake and end-to-end session keys.
public enum AuthService {
    public static let migrations = AuthMigrations.all

    public static let definition = ServiceDefinition(
        name: "auth", migrations: migrations, calls: ["vault", "statistics"], sealed: [SigningKeys.sealed, LemonSessions.sealed]
    ) { environment in
        let sealer = try Sealer(configuration: environment.configuration)
        let adminTokens = AdminTokens(database: environment.database)
        let keySetMaxAge = try environment.configuration.duration("CUSTODIAN_JWT_KEY_SET_MAX_AGE", default: .seconds(60))
        guard keySetMaxAge >= .seconds(1), keySetMaxAge <= .seconds(3600) else {
            throw ConfigurationError(message: "CUSTODIAN_JWT_KEY_SET_MAX_AGE must be from 1s to 1h")
        }
        let signingKeys = SigningKeys(database: environment.database, sealer: sealer, keySetMaxAge: keySetMaxAge)
        let issuer = environment.configuration.string("CUSTODIAN_JWT_ISSUER", default: "custodian")
        let audience = environment.configuration.string("CUSTODIAN_JWT_AUDIENCE", default: "custodian-api")

        let tokens = TokenIssuer(signingKeys: signingKeys, issuer: issuer, audience: audience)
        let throttle = PasswordThrottle(database: environment.database, sealer: sealer)
        let vaultUsers = VaultUsers(database: environment.database, services: environment.services, throttle: throttle)
        let oauth = OAuthTokens(database: environment.database, services: environment.services, users: vaultUsers, issuer: tokens, throttle: throttle)

        let serverKeys = try ServerKeyFile(json: environment.configuration.require(RuntimeKey.lemonKeys)).serverKeys()
        let sessions = LemonSessions(database: environment.database, sealer: sealer)
        let handshake = Handshake(
            database: environment.database, services: environment.services, serverKeys: serverKeys, sessions: sessions, tokens: tokens)
        let lemonDevices = LemonDevices(database: environment.database, services: environment.services, sessions: sessions)

        var methods = RPCMethods()
        methods.register(AuthMethods.oauthToken) { try await oauth.token($0, context: $1) }
        methods.register(AuthMethods.vaultUsersCreate, requires: [.admin]) { try await vaultUsers.create($0, context: $1) }
        methods.register(
            AuthMethods.vaultUsersChangePassword, requires: .only(.user, refusing: .forbidden("Only a user can change their password")),
            beforeRefusingInput: { _ = try VaultUsers.user($0) }
        ) { try await vaultUsers.changePassword($0, context: $1) }
        let vaultUserEraser = VaultUserEraser(database: environment.database, services: environment.services, throttle: throttle)
        methods.register(AuthMethods.vaultUsersErase, requires: [.admin]) { try await vaultUserEraser.erase($0, context: $1) }
        methods.register(AuthMethods.lemonHandshake, work: .cpuHeavy) { try await handshake.run($0, context: $1) }
        // The keys do not change while the process runs: their public halves are worked out once.
        let publishedKeys = LemonKeys.published(serverKeys)
        methods.register(AuthMethods.lemonKeys) { _, _ in publishedKeys }
        methods.register(AuthMethods.lemonSessionKeys) { try await sessions.keys($0, context: $1) }
        methods.register(AuthMethods.lemonSessionUse) { try await sessions.use($0, context: $1) }
        methods.register(AuthMethods.lemonDeviceDelete, requires: .lemonApp) { try await lemonDevices.delete(context: $1) }
        methods.register(AuthMethods.lemonAppsList, requires: [.admin]) { try await lemonDevices.list($0, context: $1) }
        methods.register(AuthMethods.lemonAppsErase, requires: [.admin]) { try await lemonDevices.erase($0, context: $1) }
        // Which app calls is checked before a query or body that cannot be read is answered, as the API always did.
        let appFirst: @Sendable (CallContext) async throws -> Void = { _ = try await lemonDevices.caller($0) }
        methods.register(AuthMethods.lemonDeviceActive, requires: .lemonApp, beforeRefusingInput: appFirst) {
            try await lemonDevices.setActive($0, context: $1)
        }
        methods.register(AuthMethods.lemonPushTokenUpdate, requires: .lemonApp, beforeRefusingInput: appFirst) {
            try await lemonDevices.updatePushToken($0, context: $1)
        }
        methods.register(AuthMethods.lemonPushTokenDelete, requires: .lemonApp) { try await lemonDevices.deletePushToken(context: $1) }
        methods.register(AuthMethods.adminAuthenticate) { input, context in
            try await adminTokens.authenticate(input.token, logger: context.logger)
        }
        // Owners manage identities (the gateway holds these routes to the owner scope); who made one is recorded.
        methods.register(AuthMethods.tokensList, requires: [.admin]) { _, context in try await adminTokens.list(logger: context.logger) }
        methods.register(AuthMethods.tokensCreate, requires: [.admin]) { input, context in
            try await adminTokens.create(
                label: input.label, scope: input.scope, expiresIn: input.expiresIn,
                createdBy: context.principal?.name ?? context.principal?.id, logger: context.logger)
        }
        methods.register(AuthMethods.tokensRevoke, requires: [.admin]) { input, context in
            try await adminTokens.revoke(input.id, logger: context.logger)
        }
        let audit = AuditLog(ledger: AuditLedger(database: environment.database))
        methods.register(AuthMethods.auditAppend) { input, context in try await audit.append(input, context: context) }
        methods.register(AuthMethods.auditHead) { _, context in try await audit.ledger.head(logger: context.logger) }
        methods.register(AuthMethods.auditList, requires: [.admin]) { try await audit.list($0, context: $1) }
        let console = ConsoleSessions(database: environment.database, adminTokens: adminTokens)
        methods.register(AuthMethods.consoleLogin) { input, context in try await console.login(input.token, logger: context.logger) }
        methods.register(AuthMethods.consoleSession) { input, context in try await console.session(input.token, logger: context.logger) }
        methods.register(AuthMethods.consoleLogout) { input, context in
            try await console.logout(input.token, logger: context.logger)
            return Empty()
        }
        methods.register(AuthMethods.keysList) { _, context in
            try await signingKeys.publicKeySet(logger: context.logger)
        }
        // Owners rotate and retire them (the gateway holds these routes to the owner scope).
        methods.register(AuthMethods.signingKeysList, requires: [.admin]) { _, context in try await signingKeys.list(logger: context.logger) }
        methods.register(AuthMethods.signingKeysRotate, requires: [.admin]) { _, context in try await signingKeys.rotate(logger: context.logger) }
        methods.register(AuthMethods.signingKeysRetire, requires: [.admin]) { input, context in
            try await signingKeys.retire(input, logger: context.logger)
        }
        return methods
    }
}
