import CustodianContracts
import CustodianHTTP
import CustodianRPC
import CustodianRuntime
import CustodianSecurity

/// Twomes accounts, buildings, device types, devices and measurements; OpenSense devices, configuration and uploads.
public enum DevicesService {
    public static let definition = ServiceDefinition(
        name: "devices", migrations: DevicesMigrations.all, calls: ["links"], upkeep: [MeasurementPartitions.upkeep],
        retention: DevicesRetention.all, sealed: [TwomesDevices.sealed, OpenSense.sealed]
    ) { environment in
        let database = environment.database
        let sessions = Sessions(database: database)
        let accounts = Accounts(
            database: database, services: environment.services,
            activationLifetime: try environment.configuration.duration("CUSTODIAN_ACCOUNT_ACTIVATION_TTL", default: .seconds(14 * 86400)),
            linkTemplate: environment.configuration.string("CUSTODIAN_ACCOUNT_LINK_TEMPLATE", default: "twomes-short-link"))
        let measurements = Measurements(database: database, sessions: sessions)
        let deviceTypes = DeviceTypes(database: database)
        let researcher = ResearcherAccounts(database: database)
        let sealer = try Sealer(configuration: environment.configuration)
        let devices = TwomesDevices(database: database, sessions: sessions, sealer: sealer)
        let openSense = OpenSense(database: database, sealer: sealer)
        let openSenseAdmin = OpenSenseAdmin(database: database, sealer: sealer)

        var methods = RPCMethods()
        methods.register(DevicesMethods.accountCreate, requires: [.admin]) { try await accounts.create($0, context: $1) }
        methods.register(DevicesMethods.accountActivate) { try await accounts.activate($0, context: $1) }
        methods.register(DevicesMethods.deviceCreate, requires: [.admin]) { try await devices.create($0, context: $1) }
        methods.register(DevicesMethods.deviceType) { try await devices.deviceType($0, context: $1) }
        // The app's session first, whatever the body says (the backend's order: 401 before 422).
        methods.register(DevicesMethods.deviceAttach, beforeRefusingInput: { _ = try await sessions.account($0) }) {
            try await devices.attach($0, context: $1)
        }
        methods.register(DevicesMethods.deviceActivate) { try await devices.activate($0, context: $1) }
        methods.register(DevicesMethods.deviceGet) { try await devices.get($0, context: $1) }
        // A stranger learns nothing about an upload's checks: the device's session is checked before a bad body is
        // answered (a device keeps the order it had, 401/403 before 422). A good body's upload checks it in its statement.
        let deviceFirst: @Sendable (CallContext) async throws -> Void = { _ = try await sessions.device($0) }
        methods.register(DevicesMethods.measurementsVariable, beforeRefusingInput: deviceFirst) { try await measurements.store($0, context: $1) }
        methods.register(DevicesMethods.measurementsFixed, beforeRefusingInput: deviceFirst) { try await measurements.store($0, context: $1) }
        methods.register(DevicesMethods.deviceTypesCreate, requires: [.admin]) { try await deviceTypes.create($0.definition, context: $1) }
        methods.register(DevicesMethods.deviceTypesList, requires: [.admin]) { try await deviceTypes.list(context: $1) }
        methods.register(DevicesMethods.accountsList, requires: [.admin]) { try await researcher.list($0, context: $1) }
        methods.register(DevicesMethods.accountDetail, requires: [.admin]) { try await researcher.detail($0, context: $1) }
        methods.register(DevicesMethods.accountReissue, requires: [.admin]) { try await accounts.reissue($0, context: $1) }
        methods.register(DevicesMethods.accountsCohort, requires: [.admin]) { try await accounts.cohort($0, context: $1) }
        let researcherDevices = ResearcherDevices(
            database: database, silentAfter: try environment.configuration.duration("CUSTODIAN_SILENT_AFTER", default: .seconds(2 * 3600)))
        methods.register(DevicesMethods.devicesList, requires: [.admin]) { try await researcherDevices.list($0, context: $1) }
        methods.register(DevicesMethods.deviceDetail, requires: [.admin]) { try await researcherDevices.detail($0, context: $1) }
        methods.register(DevicesMethods.twomesActivity) { _, context in try await researcherDevices.activity(context: context) }
        methods.register(DevicesMethods.opensenseRegister) { try await openSense.register($0, context: $1) }
        methods.register(DevicesMethods.opensenseConfig) { try await openSense.config(context: $1) }
        methods.register(DevicesMethods.opensenseUpload) { try await openSense.upload($0, context: $1) }
        let openSenseDirectory = OpenSenseDirectory(database: database)
        methods.register(DevicesMethods.opensenseDevices, requires: [.admin]) { try await openSenseDirectory.devices($0, context: $1) }
        methods.register(DevicesMethods.opensenseDevice, requires: [.admin]) { try await openSenseDirectory.device($0, context: $1) }
        methods.register(DevicesMethods.opensenseKey, requires: [.admin]) { try await openSenseAdmin.key($0, context: $1) }
        methods.register(DevicesMethods.opensenseReplaceConfig, requires: [.admin]) {
            try await openSenseAdmin.replaceConfig($0.configuration, context: $1)
        }
        methods.register(DevicesMethods.opensenseErase, requires: [.admin]) { try await openSenseAdmin.erase($0, context: $1) }
        let erasure = AccountErasure(database: database, services: environment.services)
        methods.register(DevicesMethods.accountErase, requires: [.admin]) { try await erasure.erase($0, context: $1) }
        methods.register(DevicesMethods.deviceDetach, requires: [.admin]) { try await erasure.detach($0, context: $1) }
        methods.register(DevicesMethods.deviceErase, requires: [.admin]) { try await erasure.eraseDevice($0, context: $1) }
        let labels = DeviceLabels(database: database, services: environment.services, sealer: sealer)
        methods.register(DevicesMethods.deviceLabel, requires: [.admin], work: .cpuHeavy) { try await labels.label($0, context: $1) }
        methods.register(DevicesMethods.deviceLabels, requires: [.admin], work: .cpuHeavy) { try await labels.sheet($0, context: $1) }
        // Exports may be large: they read the replica when one is configured, not the primary that takes uploads.
        let measurementExport = MeasurementExport(database: environment.readDatabase)
        let openSenseExport = OpenSenseExport(database: environment.readDatabase)
        methods.register(DevicesMethods.measurementsExport, requires: [.admin], work: .cpuHeavy) { try await measurementExport.page($0, context: $1) }
        methods.register(DevicesMethods.opensenseExport, requires: [.admin], work: .cpuHeavy) { try await openSenseExport.page($0, context: $1) }
        return methods
    }
}
