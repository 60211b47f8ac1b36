import CustodianRPC
import CustodianRuntime

/// Twomes accounts, buildings and devices; OpenSense devices (with their issues).
public enum DevicesService {
    public static let definition = ServiceDefinition(name: "devices", migrations: DevicesMigrations.all, calls: ["links"]) { environment in
        let accounts = Accounts(
            database: environment.database, services: environment.services,
            activationLifetime: try environment.configuration.duration("CUSTODIAN_ACCOUNT_ACTIVATION_TTL", default: .seconds(14 * 86400)))
        var methods = RPCMethods()
        methods.register("devices.account.create", input: HTTPInput.self) { input, context in
            try await accounts.create(input, context: context)
        }
        methods.register("devices.account.activate", input: HTTPInput.self) { input, context in
            try await accounts.activate(input, context: context)
        }
        return methods
    }
}
