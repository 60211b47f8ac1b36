import CustodianRPC

/// The methods every service answers (registered by CustodianRuntime's `SystemMethods.make`); call them with the
/// service named: `call(SystemMethods.health, on: "vault", …)`.
public enum SystemMethods {
    /// Whether the replica and its database answer; the gateway's `/readyz` asks every service.
    public static let health = RPCMethod<Empty, Health>("system.health", retry: .safe)
    /// The replica's release and RPC protocol, for operators (docs/rpc.md).
    public static let version = RPCMethod<Empty, Version>("system.version", retry: .safe)

    /// What the service's retention upkeep has deleted (docs/operations.md, "Retention"), for the gateway's `/metrics`.
    public static let retention = RPCMethod<Empty, RetentionTotals>("system.retention", retry: .safe)

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
}
