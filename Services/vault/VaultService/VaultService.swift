import CustodianRPC
import CustodianRuntime

/// The OwnYourData data vault: users' modules, repos with their X25519 key pairs, and items.
public enum VaultService {
    public static let definition = ServiceDefinition(name: "vault", migrations: VaultMigrations.all) { _ in
        RPCMethods()
    }
}

enum VaultMigrations {
    static let all: [Migration] = []
}
