import CustodianContracts
import CustodianHTTP
import CustodianRPC
import CustodianRuntime
import CustodianSecurity

/// Geotag routes (docs/geotag.md): API consumers and their signed requests, and the encrypted route store.
public enum RoutesService {
    public static let migrations = RoutesMigrations.all

    public static let definition = ServiceDefinition(name: "routes", migrations: migrations, sealed: [Consumers.sealed]) { environment in
        let database = environment.database
        let sealer = try Sealer(configuration: environment.configuration)
        let consumers = Consumers(database: database, sealer: sealer)
        let verifier = SignatureVerifier(consumers: consumers, seen: SeenSignatures(database: database))
        let store = RouteStore(database: database)

        var methods = RPCMethods()
        // Called by the gateway for every route with the `signature` scheme.
        methods.register(RoutesMethods.consumersVerify) { try await verifier.verify($0, context: $1) }
        methods.register(RoutesMethods.consumersCreate, requires: [.admin]) { try await consumers.create($0, context: $1) }
        methods.register(RoutesMethods.consumersList, requires: [.admin]) { try await consumers.list($0, context: $1) }
        methods.register(RoutesMethods.consumersRevoke, requires: [.admin]) { try await consumers.revoke($0, context: $1) }
        // A store or a delete names its consumer before its body or id is looked at.
        let consumerFirst: @Sendable (CallContext) async throws -> Void = { _ = try Access.consumerID($0) }
        methods.register(RoutesMethods.routeStore, requires: Access.consumer, beforeRefusingInput: consumerFirst) {
            try await store.store($0, context: $1)
        }
        methods.register(RoutesMethods.routeGet, requires: Access.consumer) { try await store.get($0, context: $1) }
        methods.register(RoutesMethods.routeLookup, requires: Access.consumer) { try await store.lookup($0, context: $1) }
        methods.register(RoutesMethods.routeDelete, requires: Access.consumer, beforeRefusingInput: consumerFirst) {
            try await store.delete($0, context: $1)
        }
        return methods
    }
}
