import CustodianContracts
import CustodianHTTP
import CustodianRPC
import CustodianRuntime
import CustodianSecurity

/// The OwnYourData data vault (docs/vault.md): users' key pairs, modules, repos with X25519 key pairs, and items.
/// Logins (passwords, OAuth tokens) belong to `auth`, which asks the vault about module credentials.
public enum VaultService {
    public static let definition = ServiceDefinition(
        name: "vault", migrations: VaultMigrations.all, calls: ["links"],
        // The data owner decides what their vault keeps: off unless the deployment sets an age.
        retention: [Retention("vault_items", table: "vault.items", timeColumn: "created_at")], sealed: [Modules.sealed]
    ) { environment in
        let database = environment.database
        let sealer = try Sealer(configuration: environment.configuration)
        let publicBaseURL = environment.configuration.string("CUSTODIAN_PUBLIC_BASE_URL", default: "https://127.0.0.1:8443")
        let keys = UserKeys(database: database)
        let modules = Modules(database: database, keys: keys, sealer: sealer, publicBaseURL: publicBaseURL, services: environment.services)
        let repos = Repos(database: database, keys: keys)
        let items = Items(database: database, repos: repos)

        var methods = RPCMethods()
        // Called by auth.
        methods.register(VaultMethods.usersInit) { try await keys.create($0, context: $1) }
        methods.register(VaultMethods.usersReseal) { try await keys.reseal($0, context: $1) }
        let erasure = UserErasure(database: environment.database)
        methods.register(VaultMethods.usersErase, requires: [.admin]) { try await erasure.erase($0, context: $1) }
        methods.register(VaultMethods.modulesCredentials) { try await modules.credentials($0, context: $1) }
        // The OwnYourData API.
        methods.register(VaultMethods.modulesIndex, requires: VaultPrincipal.required) { try await modules.index($0, context: $1) }
        methods.register(VaultMethods.reposPubKey, requires: VaultPrincipal.required) { try await repos.publicKey($0, context: $1) }
        methods.register(VaultMethods.itemsWrite, requires: VaultPrincipal.required) { try await items.write($0, context: $1) }
        methods.register(VaultMethods.itemsRead, requires: VaultPrincipal.required) { try await items.read($0, context: $1) }
        methods.register(VaultMethods.itemsDelete, requires: VaultPrincipal.required) { try await items.delete($0, context: $1) }
        methods.register(
            VaultMethods.itemsDecrypted,
            requires: .only(.user, refusing: .forbidden("Only the repo's owner can decrypt its items"), anonymous: VaultPrincipal.invalidToken),
            work: .cpuHeavy,
            beforeRefusingInput: { _ = try VaultPrincipal($0) }
        ) { try await items.decrypted($0, context: $1) }
        // Administration.
        methods.register(VaultMethods.adminCreateModule, requires: [.admin]) { try await modules.create($0, context: $1) }
        methods.register(VaultMethods.adminCreateRepo, requires: [.admin]) { try await repos.create($0, context: $1) }
        methods.register(VaultMethods.adminGrant, requires: [.admin]) { try await modules.grant($0, context: $1, repos: repos) }
        let directory = VaultDirectory(database: database)
        methods.register(VaultMethods.adminUsers, requires: [.admin]) { try await directory.users($0, context: $1) }
        methods.register(VaultMethods.adminModuleQR, requires: [.admin], work: .cpuHeavy) { try await modules.loginQR($0, context: $1) }
        return methods
    }
}
