import AuthService
import CustodianAudit
import CustodianRuntime
import DevicesService
import LinksService
import RoutesService
import StatisticsService
import VaultService

/// The database schemas a platform keeps and the newest migration this build knows of each: a backup records the
/// versions it holds, and a restore refuses one that a newer Custodian wrote (its code would meet tables it does not know).
enum PlatformSchemas {
    static let known: [String: Int] = {
        var known: [String: Int] = [:]
        for definition in [
            AuthService.definition, DevicesService.definition, VaultService.definition, RoutesService.definition,
            StatisticsService.definition, LinksService.definition,
        ] {
            known[definition.name] = definition.migrations.map(\.version).max() ?? 0
        }
        known["audit"] = AuditSchema.migrations.map(\.version).max() ?? 0
        return known
    }()

    /// The schemas of `versions` that are newer than this build knows, as "devices 9 (this build knows 8)". A schema this
    /// build does not know at all (a newer release's new service, or one of the operator's own) is restored as it is and
    /// left alone, as its code would be missing here anyway.
    static func newer(in versions: [String: Int]) -> [String] {
        versions.sorted { $0.key < $1.key }.compactMap { schema, version in
            guard let known = known[schema], version > known else { return nil }
            return "\(schema) \(version) (this build knows \(known))"
        }
    }
}
