import CustodianContracts
import CustodianRPC
import CustodianSecurity
import Foundation
import Logging

/// `system.sealing`: the service's sealed columns (``ServiceDefinition/sealed``) counted by key version, and on request
/// re-sealed under the newest key first. `custodian rotate sealing-key` and `<service> --sealing` ask it.
struct SealedValuesReport: Sendable {
    let environment: ServiceEnvironment
    let columns: [SealedColumn]
    /// Nil for a service that seals nothing (and may hold no sealing key).
    let sealer: Sealer?

    init(environment: ServiceEnvironment, columns: [SealedColumn]) throws {
        self.environment = environment
        self.columns = columns
        self.sealer = columns.isEmpty ? nil : try Sealer(configuration: environment.configuration)
    }

    func answer(reseal: Bool, logger: Logger) async throws -> SystemMethods.SealedValues {
        guard let sealer else {
            return .init(service: environment.name, instance: environment.instance, keyVersions: [], newestVersion: 0, columns: [])
        }
        let newest = Int(sealer.keyring.newest)
        var counts = try await self.counts(logger: logger)
        var passes: [SealedColumn.Pass]?
        var seconds: Double?
        if reseal {
            // A replica started before the key file gained a version would seal the newer values down to its own newest.
            if let newer = counts.joined().map(\.version).filter({ $0 > newest }).max() {
                throw RPCError(
                    .conflict, reason: "newer_sealing_key",
                    message:
                        "Values are sealed under key version \(newer), newer than this replica's newest (\(newest)): restart it with the newest key file, then re-seal"
                )
            }
            let started = ContinuousClock.now
            var done: [SealedColumn.Pass] = []
            for column in columns {
                done.append(try await column.reseal(environment.database, sealer: sealer, logger: logger))
            }
            seconds = (ContinuousClock.now - started).seconds
            passes = done
            counts = try await self.counts(logger: logger)
            logger.notice(
                "re-sealed under the newest sealing key",
                metadata: [
                    "key_version": .stringConvertible(newest), "resealed": .stringConvertible(done.reduce(0) { $0 + $1.resealed }),
                    "changed_meanwhile": .stringConvertible(done.reduce(0) { $0 + $1.changedMeanwhile }),
                    "unopenable": .stringConvertible(done.reduce(0) { $0 + $1.unopenable }),
                ])
        }
        let reported = columns.enumerated().map { index, column in
            SystemMethods.SealedValues.Column(
                table: column.table, column: column.column, key: column.key, context: column.context("{key}"), versions: counts[index],
                resealed: passes?[index].resealed, changedMeanwhile: passes?[index].changedMeanwhile, unopenable: passes?[index].unopenable)
        }
        return .init(
            service: environment.name, instance: environment.instance, keyVersions: sealer.keyring.versions.map { Int($0) },
            newestVersion: newest, columns: reported, resealSeconds: seconds)
    }

    private func counts(logger: Logger) async throws -> [[SystemMethods.SealedValues.VersionCount]] {
        var all: [[SystemMethods.SealedValues.VersionCount]] = []
        for column in columns { all.append(try await column.versionCounts(environment.database, logger: logger)) }
        return all
    }
}
