/// `system.health` and `system.version`, which every service answers (the methods are in CustodianRuntime's
/// `SystemMethods.make`); the gateway's readiness check reads them.
public enum SystemMethods {
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
