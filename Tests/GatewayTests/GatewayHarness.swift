import CustodianContracts
import CustodianHTTP
import CustodianJWT
import CustodianRPC
import CustodianProcess
import Foundation
import GatewayKit
import Hummingbird
import HummingbirdTesting
import JWTKit
import Logging
import ServiceLifecycle
import Synchronization

/// The gateway's router in front of fake services: real RPC servers on temporary Unix sockets whose
/// methods echo what the gateway sent them, so tests see exactly what a service receives.
struct GatewayHarness {
    static let adminToken = "good-admin-token"
    /// A researcher's token: may read, not write.
    static let researcherToken = "researcher-token"
    let directory: String
    let signingKey: SigningKey
    /// What the fake auth was asked to append to the audit log; while `failing`, it refuses.
    let audit = FakeAuditLog()
    /// The key set the fake auth publishes: by default the one key ``signingKey``, without a max age.
    let published = PublishedKeySet()

    final class PublishedKeySet: Sendable {
        private let set = Mutex<PublicKeySet?>(nil)
        func publish(_ keys: PublicKeySet) { set.withLock { $0 = keys } }
        func current(else key: SigningKey) -> PublicKeySet { set.withLock { $0 } ?? PublicKeySet(keys: [key.publicJWK!]) }
    }

    final class FakeAuditLog: Sendable {
        private let state = Mutex<(records: [AuditRecord], failing: Bool)>(([], false))
        var records: [AuditRecord] { state.withLock { $0.records } }
        func fail(_ failing: Bool) { state.withLock { $0.failing = failing } }

        func append(_ record: AuditRecord) throws -> AuditHead {
            try state.withLock { state in
                if state.failing { throw RPCError.unavailable("database down", reason: "database_unavailable") }
                state.records.append(record)
                return AuditHead(seq: Int64(state.records.count), hash: String(repeating: "a", count: 64))
            }
        }
    }

    static let routes: [Route] = [
        Route(.post, "/account/echo", service: "devices", rpc: "fake.echo", auth: .none, style: .twomes),
        Route(.get, "/api/v1/echo/{name}", service: "devices", rpc: "fake.echo", auth: .none, style: .lemon),
        Route(.post, "/api/v1/created", service: "devices", rpc: "fake.echo", auth: .none, style: .lemon, success: .created),
        Route(.post, "/admin/v1/echo", service: "devices", rpc: "fake.echo", auth: .admin(.operator), style: .admin),
        Route(.get, "/admin/v1/echo", service: "devices", rpc: "fake.echo", retry: .safe, auth: .admin(.researcher), style: .admin),
        Route(.post, "/account/admin-echo", service: "devices", rpc: "fake.echo", auth: .admin(.operator), style: .twomes),
        Route(.get, "/admin/v1/jwt", service: "devices", rpc: "fake.echo", auth: .jwt(kinds: ["app"]), style: .admin),
        Route(.get, "/device/opaque", service: "devices", rpc: "fake.echo", auth: .opaque(kind: "account"), style: .twomes),
        Route(.post, "/register", service: "devices", rpc: "fake.echo", auth: .none, style: .opensense, acceptsFormBodies: true),
        Route(.post, "/fail/{style}", service: "devices", rpc: "fake.fail", auth: .none, style: .twomes),
        Route(.post, "/oauth/fail", service: "devices", rpc: "fake.fail", auth: .none, style: .oyd),
        Route(.post, "/api/v1/fail", service: "devices", rpc: "fake.fail", auth: .none, style: .lemon),
        Route(.post, "/admin/v1/fail", service: "devices", rpc: "fake.fail", auth: .none, style: .admin),
        Route(.post, "/upload", service: "devices", rpc: "fake.fail", auth: .none, style: .opensense),
        Route(.post, "/route", service: "devices", rpc: "fake.fail", auth: .none, style: .geotag),
        Route(
            .get, "/l/{code}", service: "devices", rpc: "fake.raw", auth: .none, style: .admin, rendering: .raw,
            forwardedHeaders: [.userAgent]),
        Route(.post, "/route/down", service: "routes", rpc: "routes.anything", auth: .none, style: .geotag),
        Route(.post, "/route/text", service: "devices", rpc: "fake.echo", auth: .none, style: .geotag, body: .text, maximumBodySize: 2048),
        Route(.delete, "/route/gone", service: "devices", rpc: "fake.echo", auth: .none, style: .geotag, success: .noContent),
        // Signed: checked by `routes`, which has no replica here.
        Route(.post, "/route/signed", service: "devices", rpc: "fake.echo", auth: .signature, style: .geotag),
        Route(.post, "/account/down", service: "routes", rpc: "routes.anything", auth: .none, style: .twomes),
    ]

    /// Runs `body` with a test client for the router, while the fake services run.
    /// `settings` are added to the gateway's configuration (`CUSTODIAN_RATE_LIMIT_STANDARD`, say).
    static func withGateway(
        settings: [String: String] = [:],
        _ body: @Sendable (any TestClientProtocol, GatewayHarness) async throws -> Void
    ) async throws {
        let directory = "/tmp/cgw-\(UUID().uuidString.prefix(8))"
        let harness = GatewayHarness(directory: directory, signingKey: .generate())
        let logger = Logger(label: "gateway-tests")
        let devices = RPCServer(
            configuration: .init(endpoint: try Endpoint("unix:\(directory)/devices/1.sock")), methods: fakeDevices(), logger: logger)
        let auth = RPCServer(
            configuration: .init(endpoint: try Endpoint("unix:\(directory)/auth/1.sock")), methods: harness.fakeAuth(), logger: logger)
        let group = ServiceGroup(configuration: .init(services: [.init(service: devices), .init(service: auth)], logger: logger))

        let configuration = try Configuration(
            environment: [
                "CUSTODIAN_INSECURE_HTTP": "1", "CUSTODIAN_MAX_BODY_SIZE": "1024", "CUSTODIAN_RUNTIME_DIR": directory,
                "CUSTODIAN_SERVICE_TIMEOUT": "60s",
            ].merging(settings) { _, new in new },
            arguments: [])
        let rpc = try RPCClient.platform(for: ["devices", "auth", "routes"], configuration: configuration, logger: logger)
        let router = buildRouter(routes: routes, rpc: rpc, metrics: GatewayMetrics(), configuration: try GatewayConfiguration(configuration))

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            _ = try await devices.listeningAddress()
            _ = try await auth.listeningAddress()
            do {
                try await Application(router: router).test(.router) { client in try await body(client, harness) }
            } catch {
                rpc.shutdown()
                await group.triggerGracefulShutdown()
                throw error
            }
            rpc.shutdown()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    struct Echo: Codable, Sendable {
        var input: HTTPInput
        var principal: Principal?
        var credential: Credential?
        var requestID: String
    }

    struct FailInput: Codable, Sendable {}

    private static func fakeDevices() -> RPCMethods {
        var methods = RPCMethods()
        methods.register("fake.echo", input: HTTPInput.self) { input, context in
            Echo(input: input, principal: context.principal, credential: context.credential, requestID: context.requestID)
        }
        methods.register("fake.raw", input: HTTPInput.self) { input, _ in
            RawHTTPReply(
                status: 302,
                headers: [
                    "Location": "https://app.example/\(input.path["code"] ?? "")",
                    "X-Forwarded-Headers": input.headers.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ";"),
                ], body: Data([0, 1, 2, 255]))
        }
        methods.register("fake.fail", input: HTTPInput.self) { _, _ -> Empty in
            throw RPCError.notFound("No such thing here", reason: "thing_not_found")
        }
        return methods
    }

    private func fakeAuth() -> RPCMethods {
        var methods = RPCMethods()
        struct TokenInput: Codable, Sendable { var token: String }
        methods.register("auth.admin.authenticate", input: TokenInput.self) { input, _ in
            switch input.token {
            case Self.adminToken: return Principal(kind: "admin", id: "admin-1", scopes: ["operator"], name: "test operator")
            case Self.researcherToken: return Principal(kind: "admin", id: "researcher-1", scopes: ["researcher"], name: "test researcher")
            default: throw RPCError.unauthenticated("Invalid admin session token", reason: "invalid_admin_token")
            }
        }
        let audit = self.audit
        methods.register(AuthMethods.auditAppend) { input, _ in try audit.append(input) }
        let published = self.published, signingKey = self.signingKey
        methods.register("auth.keys.list", input: Empty.self) { _, _ in published.current(else: signingKey) }
        return methods
    }

    /// An access token signed with the key the fake auth publishes (or `key`).
    func accessToken(
        kind: String = "app", issuer: String = "custodian", audience: String = "custodian-api",
        issuedAt: Date = Date(), lifetime: TimeInterval = 600, key: SigningKey? = nil
    ) async throws -> String {
        let key = key ?? signingKey
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key.privateKey, kid: JWKIdentifier(string: key.kid))
        let claims = AccessClaims(
            subject: "app-7", kind: kind, session: "session-1", scopes: ["submit"], issuer: issuer,
            audience: audience, issuedAt: issuedAt, lifetime: lifetime)
        return try await keys.sign(claims, kid: JWKIdentifier(string: key.kid))
    }
}
