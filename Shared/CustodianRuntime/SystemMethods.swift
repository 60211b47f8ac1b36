import CustodianContracts
import CustodianRPC
import CustodianTracing
import PostgresNIO

/// The methods every service answers, over its own database.
extension SystemMethods {
    static func make(environment: ServiceEnvironment, keepsRetentionTotals: Bool = false, sealed: [SealedColumn] = []) throws -> RPCMethods {
        var methods = RPCMethods()
        methods.register(health) { _, context in
            let reachable = await databaseReachable(environment.database, context: context)
            return Health(
                status: reachable ? "ok" : "degraded", service: environment.name, instance: environment.instance,
                database: reachable ? "ok" : "unreachable")
        }
        methods.register(retention) { _, context in
            guard keepsRetentionTotals else { return RetentionTotals(service: environment.name, classes: []) }
            let rows = try await environment.database.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT data_class, passes, deleted, extract(epoch FROM last_pass)::float8, extract(epoch FROM last_cutoff)::float8, last_deleted
                        FROM \(environment.name).retention_totals ORDER BY data_class
                        """), logger: context.logger)
            var classes: [RetentionTotals.DataClass] = []
            for try await (name, passes, deleted, lastPass, lastCutoff, lastDeleted) in rows.decode(
                (String, Int64, Int64, Double, Double, Int64).self)
            {
                classes.append(
                    .init(dataClass: name, passes: passes, deleted: deleted, lastPass: lastPass, lastCutoff: lastCutoff, lastDeleted: lastDeleted))
            }
            return RetentionTotals(service: environment.name, classes: classes)
        }
        let sealing = try SealedValuesReport(environment: environment, columns: sealed)
        methods.register(Self.sealing) { request, context in
            try await sealing.answer(reseal: request.reseal == true, logger: context.logger)
        }
        methods.register(tracing) { _, _ in
            TracingTotals(
                service: environment.name, instance: environment.instance, exporting: ProcessTracing.isExporting, spansDropped: SpanDrops.total)
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
