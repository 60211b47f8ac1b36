import CustodianRPC
import Foundation

/// The methods every service answers (registered by CustodianRuntime's `SystemMethods.make`); call them with the
/// service named: `call(SystemMethods.health, on: "vault", …)`.
public enum SystemMethods {
    /// Whether the replica and its database answer; the gateway's `/readyz` asks every service.
    public static let health = RPCMethod<Empty, Health>("system.health", retry: .safe)
    /// The replica's release and RPC protocol, for operators (docs/rpc.md).
    public static let version = RPCMethod<Empty, Version>("system.version", retry: .safe)

    /// What the service's retention upkeep has deleted (docs/operations.md, "Retention"), for the gateway's `/metrics`.
    public static let retention = RPCMethod<Empty, RetentionTotals>("system.retention", retry: .safe)

    /// Whether the replica exports spans and how many it dropped instead (docs/operations.md, "Tracing"), for the
    /// gateway's `/metrics`.
    public static let tracing = RPCMethod<Empty, TracingTotals>("system.tracing", retry: .safe)

    /// The values the service keeps sealed with the deployment's sealing key, per column and key version
    /// (docs/operations.md, "Rotating the sealing key"); with `reseal`, after moving every one to the newest key.
    public static let sealing = RPCMethod<SealingRequest, SealedValues>("system.sealing", retry: .safe)

    public struct SealingRequest: Codable, Sendable, Equatable {
        /// Re-seal every value under an older key with the newest one first.
        public var reseal: Bool?

        public init(reseal: Bool? = nil) {
            self.reseal = reseal
        }
    }

    public struct SealedValues: Codable, Sendable, Equatable {
        public var service: String
        public var instance: String
        /// The key versions this replica holds, oldest first; empty for a service that seals nothing.
        public var keyVersions: [Int]
        /// The version it seals new values under (0 when it seals nothing).
        public var newestVersion: Int
        public var columns: [Column]
        /// How long the re-seal took, when one was asked for.
        public var resealSeconds: Double?

        public struct Column: Codable, Sendable, Equatable {
            /// `schema.table`.
            public var table: String
            public var column: String
            /// The column whose text identifies a row, and the context (associated data) a row's value is sealed with,
            /// `{key}` standing for that text.
            public var key: String
            public var context: String
            /// How many values are under each key version, lowest first (an empty value, such as a revoked consumer's
            /// wiped secret, is not counted).
            public var versions: [VersionCount]
            /// With `reseal`: the values this pass sealed again under the newest key.
            public var resealed: Int?
            /// With `reseal`: values that changed while the pass had them in hand, which it left alone (the
            /// change won); a second pass takes those still under an older key.
            public var changedMeanwhile: Int?
            /// With `reseal`: values under an older version that did not open with its key (damaged, or sealed under
            /// a version this replica does not hold), which stay as they are.
            public var unopenable: Int?

            public init(
                table: String, column: String, key: String, context: String, versions: [VersionCount], resealed: Int? = nil,
                changedMeanwhile: Int? = nil, unopenable: Int? = nil
            ) {
                self.table = table
                self.column = column
                self.key = key
                self.context = context
                self.versions = versions
                self.resealed = resealed
                self.changedMeanwhile = changedMeanwhile
                self.unopenable = unopenable
            }

            /// Values under `version`.
            public func values(under version: Int) -> Int {
                versions.first { $0.version == version }?.values ?? 0
            }
        }

        public struct VersionCount: Codable, Sendable, Equatable {
            public var version: Int
            public var values: Int

            public init(version: Int, values: Int) {
                self.version = version
                self.values = values
            }
        }

        public init(
            service: String, instance: String, keyVersions: [Int], newestVersion: Int, columns: [Column], resealSeconds: Double? = nil
        ) {
            self.service = service
            self.instance = instance
            self.keyVersions = keyVersions
            self.newestVersion = newestVersion
            self.columns = columns
            self.resealSeconds = resealSeconds
        }

        /// Values under any version but the newest.
        public var valuesUnderOlderKeys: Int {
            columns.reduce(0) { total, column in total + column.versions.filter { $0.version != newestVersion }.reduce(0) { $0 + $1.values } }
        }

        /// Values under `version`, in every column.
        public func values(under version: Int) -> Int {
            columns.reduce(0) { $0 + $1.values(under: version) }
        }

        /// What operators read: a line for the replica, then one per column.
        public var summary: [String] {
            let held = keyVersions.map(String.init).joined(separator: ", ")
            var lines = ["\(service) (\(instance)): key versions \(held.isEmpty ? "none" : held), new values sealed under \(newestVersion)"]
            if let resealSeconds { lines[0] += String(format: "; re-sealed in %.2f s", resealSeconds) }
            for column in columns {
                let counts =
                    column.versions.isEmpty ? "no values" : column.versions.map { "version \($0.version): \($0.values)" }.joined(separator: ", ")
                var line = "  \(column.table).\(column.column): \(counts)"
                if let resealed = column.resealed {
                    line += " (re-sealed \(resealed), changed meanwhile \(column.changedMeanwhile ?? 0), unopenable \(column.unopenable ?? 0))"
                }
                lines.append(line)
            }
            return lines
        }
    }

    public struct RetentionTotals: Codable, Sendable, Equatable {
        public var service: String
        public var classes: [DataClass]

        public struct DataClass: Codable, Sendable, Equatable {
            public var dataClass: String
            public var passes: Int64
            public var deleted: Int64
            /// Unix time, seconds.
            public var lastPass: Double
            public var lastCutoff: Double
            public var lastDeleted: Int64

            public init(dataClass: String, passes: Int64, deleted: Int64, lastPass: Double, lastCutoff: Double, lastDeleted: Int64) {
                self.dataClass = dataClass
                self.passes = passes
                self.deleted = deleted
                self.lastPass = lastPass
                self.lastCutoff = lastCutoff
                self.lastDeleted = lastDeleted
            }
        }

        public init(service: String, classes: [DataClass]) {
            self.service = service
            self.classes = classes
        }
    }

    public struct Health: Codable, Sendable, Equatable {
        public var status: String
        public var service: String
        public var instance: String
        public var database: String

        public init(status: String, service: String, instance: String, database: String) {
            self.status = status
            self.service = service
            self.instance = instance
            self.database = database
        }
    }

    public struct Version: Codable, Sendable, Equatable {
        public var service: String
        public var version: String
        public var rpcProtocol: Int

        public init(service: String, version: String, rpcProtocol: Int) {
            self.service = service
            self.version = version
            self.rpcProtocol = rpcProtocol
        }
    }

    public struct TracingTotals: Codable, Sendable, Equatable {
        public var service: String
        public var instance: String
        public var exporting: Bool
        /// Spans finished but not exported since the replica started: the queue was full or the collector failed.
        public var spansDropped: Int

        public init(service: String, instance: String, exporting: Bool, spansDropped: Int) {
            self.service = service
            self.instance = instance
            self.exporting = exporting
            self.spansDropped = spansDropped
        }
    }
}
