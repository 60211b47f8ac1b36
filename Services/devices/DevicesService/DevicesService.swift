import CustodianRPC
import CustodianRuntime
import CustodianSecurity

/// Twomes accounts, buildings, device types, devices and measurements; OpenSense devices, configuration and uploads.
public enum DevicesService {
    public static let definition = ServiceDefinition(name: "devices", migrations: DevicesMigrations.all, calls: ["links"]) { environment in
        let database = environment.database
        let sessions = Sessions(database: database)
        let accounts = Accounts(
            database: database, services: environment.services,
            activationLifetime: try environment.configuration.duration("CUSTODIAN_ACCOUNT_ACTIVATION_TTL", default: .seconds(14 * 86400)),
            linkTemplate: environment.configuration.string("CUSTODIAN_ACCOUNT_LINK_TEMPLATE", default: "twomes-account"))
        let measurements = Measurements(database: database, sessions: sessions)
        let deviceTypes = DeviceTypes(database: database)
        let researcher = ResearcherAccounts(database: database)
        let sealer = try Sealer(base64: environment.configuration.require(RuntimeKey.sealingKey))
        let devices = TwomesDevices(database: database, sessions: sessions, sealer: sealer)
        let openSense = OpenSense(database: database, sealer: sealer)
        let openSenseAdmin = OpenSenseAdmin(database: database, sealer: sealer)

        var methods = RPCMethods()
        methods.register("devices.account.create", input: HTTPInput.self, requires: [.admin]) { try await accounts.create($0, context: $1) }
        methods.register("devices.account.activate", input: HTTPInput.self) { try await accounts.activate($0, context: $1) }
        methods.register("devices.device.create", input: HTTPInput.self, requires: [.admin]) { try await devices.create($0, context: $1) }
        methods.register("devices.device.type", input: HTTPInput.self) { try await devices.deviceType($0, context: $1) }
        methods.register("devices.device.attach", input: HTTPInput.self) { try await devices.attach($0, context: $1) }
        methods.register("devices.device.activate", input: HTTPInput.self) { try await devices.activate($0, context: $1) }
        methods.register("devices.device.get", input: HTTPInput.self) { try await devices.get($0, context: $1) }
        methods.register("devices.measurements.variable", input: HTTPInput.self) { try await measurements.uploadVariable($0, context: $1) }
        methods.register("devices.measurements.fixed", input: HTTPInput.self) { try await measurements.uploadFixed($0, context: $1) }
        methods.register("devices.deviceTypes.create", input: HTTPInput.self, requires: [.admin]) { try await deviceTypes.create($0, context: $1) }
        methods.register("devices.deviceTypes.list", input: HTTPInput.self, requires: [.admin]) { try await deviceTypes.list(context: $1) }
        methods.register("devices.accounts.list", input: HTTPInput.self, requires: [.admin]) { try await researcher.list($0, context: $1) }
        methods.register("devices.opensense.register", input: HTTPInput.self) { try await openSense.register($0, context: $1) }
        methods.register("devices.opensense.config", input: HTTPInput.self) { try await openSense.config(context: $1) }
        methods.register("devices.opensense.upload", input: HTTPInput.self) { try await openSense.upload($0, context: $1) }
        methods.register("devices.opensense.devices", input: HTTPInput.self, requires: [.admin]) { try await openSenseAdmin.devices(context: $1) }
        methods.register("devices.opensense.key", input: HTTPInput.self, requires: [.admin]) { try await openSenseAdmin.key($0, context: $1) }
        methods.register("devices.opensense.replaceConfig", input: HTTPInput.self, requires: [.admin]) { try await openSenseAdmin.replaceConfig($0, context: $1) }
        let labels = DeviceLabels(database: database, services: environment.services, sealer: sealer)
        methods.register("devices.device.label", input: HTTPInput.self, requires: [.admin], work: .cpuHeavy) { try await labels.label($0, context: $1) }
        methods.register("devices.device.labels", input: HTTPInput.self, requires: [.admin], work: .cpuHeavy) { try await labels.sheet($0, context: $1) }
        let measurementExport = MeasurementExport(database: database)
        let openSenseExport = OpenSenseExport(database: database)
        methods.register("devices.measurements.export", input: HTTPInput.self, requires: [.admin], work: .cpuHeavy) { try await measurementExport.page($0, context: $1) }
        methods.register("devices.opensense.export", input: HTTPInput.self, requires: [.admin], work: .cpuHeavy) { try await openSenseExport.page($0, context: $1) }
        return methods
    }
}
