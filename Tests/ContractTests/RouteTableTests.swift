import AuthService
import CustodianContracts
import CustodianLemon
import CustodianRPC
import CustodianRuntime
import DevicesService
import Foundation
import GatewayKit
import LinksService
import Logging
import PostgresNIO
import RoutesService
import StatisticsService
import Testing
import VaultService

/// The gateway's route table against the services' method tables, built as each service builds them at start:
/// a route whose method no service registers, an admin route whose method is not declared for admins, or a
/// method nothing can reach fails here, not in production.
@Suite("Route table and method tables agree")
struct RouteTableTests {
    /// Methods no route names, with who calls them.
    static let calledBeyondRoutes: [String: String] = [
        AuthMethods.adminAuthenticate.name: "the gateway, for the admin scheme",
        AuthMethods.auditAppend.name: "the gateway, before and after each admin call (and the command line, straight to the database)",
        AuthMethods.auditHead.name: "the gateway, to publish the audit log's head",
        AuthMethods.keysList.name: "the gateway, for the public keys that verify access tokens",
        VaultMethods.usersErase.name: "auth, for the vault's part of a vault user's erasure",
        StatisticsMethods.deviceMarkSynthetic.name: "auth, when it registers a synthetic app instance",
        AuthMethods.consoleLogin.name: "the gateway's console, to log a researcher in",
        AuthMethods.consoleSession.name: "the gateway's console, for the session of each page",
        AuthMethods.consoleLogout.name: "the gateway's console, to log out",
        AuthMethods.lemonSessionKeys.name: "the gateway, for the keys of a tracing-app session",
        AuthMethods.lemonSessionUse.name: "the gateway, to admit each end-to-end request of a session",
        RoutesMethods.consumersVerify.name: "the gateway, for the signature scheme",
        VaultMethods.usersInit.name: "auth, when a vault user is created",
        VaultMethods.usersReseal.name: "auth, when a vault user's password changes",
        VaultMethods.modulesCredentials.name: "auth, for OAuth client credentials",
        LinksMethods.activationMint.name: "devices, for a new account's activation link",
        LinksMethods.qrRender.name: "devices (device labels) and vault (module login codes)",
        LinksMethods.labelsSheet.name: "devices, for label sheets",
        StatisticsMethods.languagesSupported.name: "auth, in the tracing app's handshake",
        StatisticsMethods.deviceForget.name: "auth, when a tracing app is deleted",
        LinksMethods.shortCreate.name: "other services, for short links (the admin route uses links.short.http.create)",
        SystemMethods.health.name: "the gateway's /readyz",
        SystemMethods.version.name: "operators, over a replica's socket (docs/rpc.md)",
        SystemMethods.retention.name: "the gateway's /metrics, for the retention totals",
        SystemMethods.tracing.name: "the gateway's /metrics, for the spans each process dropped",
        DevicesMethods.twomesActivity.name: "the gateway's /metrics, for the Twomes devices reporting and silent",
        SystemMethods.sealing.name: "operators, over a replica's socket: `custodian rotate sealing-key` and `<service> --sealing`",
    ]

    static let definitions: [ServiceDefinition] = [
        AuthService.definition, DevicesService.definition, LinksService.definition,
        RoutesService.definition, StatisticsService.definition, VaultService.definition,
    ]

    /// Each service's methods, by service name. Nothing connects: the database pool and the RPC client never run.
    /// Made once: an RSA key takes a while in a debug build, and holds a thread of the shared pool meanwhile.
    static let keys = Result { try ServerKeyFile.generate(id: "contract-tests").json() }

    static func methodTables() throws -> [String: RPCMethods] {
        let keys = try keys.get()
        let sealingKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let configuration = try Configuration(
            environment: [RuntimeKey.sealingKey: sealingKey, RuntimeKey.lemonKeys: keys, "CUSTODIAN_RUNTIME_DIR": "/tmp/contract-tests"],
            arguments: [])
        let logger = Logger(label: "contract-tests")
        let url = DatabaseURL(host: "127.0.0.1", port: 1, username: "nobody", password: "x", database: "none")
        let database = Database(client: PostgresClient(url: url, logger: logger))
        var tables: [String: RPCMethods] = [:]
        for definition in definitions {
            let services = try RPCClient.platform(for: definition.calls, configuration: configuration, logger: logger)
            let environment = ServiceEnvironment(
                name: definition.name, instance: "test", configuration: configuration, database: database, services: services, logger: logger)
            tables[definition.name] = try ServiceHost.methods(of: definition, environment: environment)
        }
        return tables
    }

    @Test func everyRoutesMethodIsRegisteredAndDeclaredForTheRoutesCallers() throws {
        let tables = try Self.methodTables()
        for route in RouteTable.all {
            let name = "\(route.method) \(route.path) → \(route.rpcMethod)"
            let methods = try #require(tables[route.service], "\(name): no service \(route.service)")
            #expect(methods.names.contains(route.rpcMethod), "\(name): \(route.service) does not register it")
            #expect(route.rpcMethod.hasPrefix(route.service + "."), "\(name): named for another service")
            let declared = methods.requiredPrincipals(of: route.rpcMethod)
            switch route.auth {
            case .admin:
                #expect(declared == [.admin], "\(name): an admin route's method must be declared requires: [.admin]")
            case .jwt(let kinds):
                // Declared, and for no kind the route's tokens cannot be (a method may take fewer).
                #expect(
                    declared.map { !$0.isEmpty && $0.isSubset(of: Set(kinds)) } == true,
                    "\(name): declared for \(declared ?? []), the route admits \(kinds)")
            case .opaque(let kind):
                // The gateway cannot read these tokens: it passes them on, the method checks them and finds its caller.
                #expect(
                    declared == nil,
                    "\(name): declared for \(declared ?? []), but the route's \(kind) tokens reach it as a credential, not a principal")
            case .signature:
                #expect(declared == [.consumer], "\(name): declared for \(declared ?? []), the route's callers are consumers")
            case .none:
                #expect(declared == nil, "\(name): a public route's method declared for \(declared ?? [])")
            }
        }
    }

    /// Every admin route says which scope it needs, in the table beside its auth scheme; a route under `/admin/v1` that
    /// is not an admin route would bypass both the scopes and the audit log.
    @Test func everyAdminRouteDeclaresAScopeThatFitsWhatItDoes() {
        // What only owners may do: manage identities, recover keys, read the audit log, rotate the access tokens' signing keys.
        let ownersOnly: Set<String> = [
            "GET /admin/v1/tokens", "POST /admin/v1/tokens", "DELETE /admin/v1/tokens/{token_id}", "GET /admin/v1/audit",
            "GET /admin/v1/opensense/devices/{device_id}/key",
            "GET /admin/v1/signing-keys", "POST /admin/v1/signing-keys", "DELETE /admin/v1/signing-keys/{kid}",
            // Erasing a participant's data (docs/erasure.md).
            "DELETE /admin/v1/accounts/{pseudonym}", "DELETE /admin/v1/opensense/devices/{device_id}", "DELETE /admin/v1/vault/users/{user_id}",
            "DELETE /admin/v1/devices/{device_name}", "DELETE /admin/v1/lemon/apps/{device_id}",
        ]
        var admin = 0
        for route in RouteTable.all {
            let name = "\(route.method.rawValue) \(route.path)"
            guard case .admin(let scope) = route.auth else {
                #expect(!route.path.hasPrefix("/admin/"), "\(name) is under /admin/ but is not an admin route (no scope, no audit)")
                continue
            }
            admin += 1
            #expect(ownersOnly.contains(name) == (scope == .owner), "\(name) needs \(scope)")
            // A researcher reads; anything that creates or changes something needs an operator at least.
            if route.method != .get { #expect(scope != .researcher, "\(name) changes something, yet a researcher may call it") }
        }
        // Twomes' own admin routes (`POST /account`, `POST /device`) are admin routes outside /admin/v1.
        #expect(admin == RouteTable.all.filter { $0.path.hasPrefix("/admin/") }.count + 2)
        #expect(
            Set(RouteTable.all.filter { if case .admin(.owner) = $0.auth { true } else { false } }.map { "\($0.method.rawValue) \($0.path)" })
                == ownersOnly)
    }

    /// Reads are safe to send again after a replica went away mid-call; a GET route whose method is not declared so
    /// would make clients see failures a retry would have hidden.
    @Test func everyReadIsSafeToRetry() {
        for route in RouteTable.all where route.method == .get {
            #expect(route.retry == .safe, "\(route.method) \(route.path) → \(route.rpcMethod) is not declared retry: .safe")
        }
        // And a write that creates something anew on each call is not (a tracing app's submission is stored once per body).
        for route in RouteTable.all where route.successStatus == .created && route.path != "/api/v1/submission/covid" {
            #expect(route.retry == .unsafe, "\(route.method) \(route.path) creates something, yet is declared safe to retry")
        }
    }

    /// Over TCP with mutual TLS a service accepts only the callers `Platform.callers` names: exactly the gateway and
    /// the services whose definitions call it, or a call between services would be refused in a cluster.
    @Test func theCallersEachServiceAcceptsAreTheOnesThatCallIt() {
        for definition in Self.definitions {
            let callers = Set(Self.definitions.filter { $0.calls.contains(definition.name) }.map(\.name)).union(["gateway"])
            #expect(Platform.callers[definition.name] == callers, "\(definition.name) is called by \(callers.sorted())")
        }
        #expect(Set(Platform.callers.keys) == Set(Self.definitions.map(\.name)))
    }

    @Test func everyRegisteredMethodIsReachable() throws {
        let tables = try Self.methodTables()
        let routed = Set(RouteTable.all.map(\.rpcMethod))
        for (service, methods) in tables {
            for name in methods.names where !routed.contains(name) {
                #expect(Self.calledBeyondRoutes[name] != nil, "\(service) registers \(name), which no route names and no caller is listed for")
            }
        }
        // And what the list says is called exists.
        let registered = Set(tables.values.flatMap(\.names))
        for name in Self.calledBeyondRoutes.keys {
            #expect(registered.contains(name), "\(name) is listed as called but no service registers it")
        }
    }
}
