import CustodianContracts
import CustodianRPC
import PostgresNIO

/// The methods every service answers, over its own database.
extension SystemMethods {
    static func make(environment: ServiceEnvironment) -> RPCMethods {
        var methods = RPCMethods()
        methods.register(health) { _, context in
            let reachable = await databaseReachable(environment.database, context: context)
            return Health(
                status: reachable ? "ok" : "degraded", service: environment.name, instance: environment.instance,
                database: reachable ? "ok" : "unreachable")
        }
        methods.register(version) { _, _ in
            Version(service: environment.name, version: CustodianVersion.current, rpcProtocol: CustodianVersion.rpcProtocol)
        }
        return methods
    }

    private static func databaseReachable(_ database: Database, context: CallContext) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                (try? await database.query("SELECT 1", logger: context.logger)) != nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(2))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
