import CustodianRuntime
import Foundation

/// The processes `custodian up` keeps running, each with its environment: every replica of every service, then the
/// gateway. A secret goes only to the services that read it (the sealing key, the tracing app's keys), a database URL
/// only to the service whose role it names, and the administrator's URL `up` may have been given to none.
struct PlatformPrograms: Sendable {
    /// What every process starts with.
    let base: [String: String]
    let binaries: String
    let logs: String
    /// Each service's own database URL, with its role: the file it is in, read by each process as it starts, so that a
    /// replica started after a password rotation (`custodian rotate db-password`) logs in with the new one.
    let databaseURLFiles: [String: String]
    let sealingKeyFile: String
    let lemonKeysFile: String
    /// The gateway's own settings: its address, TLS.
    let gatewayEnvironment: [String: String]

    /// `environment`: `custodian up`'s own; `parent`: its pid, which each process watches to stop with it;
    /// `publicBaseURL`: where short links point unless the environment says where the platform is reached from outside.
    init(
        environment: [String: String], runtimeDirectory: String, parent: pid_t, eventLoops: Int, publicBaseURL: String,
        binaries: String, logs: String, databaseURLFiles: [String: String], sealingKeyFile: String, lemonKeysFile: String,
        gatewayEnvironment: [String: String]
    ) {
        var base = environment
        base[RuntimeKey.databaseURL] = nil
        base[RuntimeKey.databaseURL + "_FILE"] = nil
        base[RuntimeKey.runtimeDirectory] = runtimeDirectory
        base[ParentWatch.key] = String(parent)
        if base[RuntimeKey.eventLoops, default: ""].isEmpty { base[RuntimeKey.eventLoops] = String(eventLoops) }
        if base["CUSTODIAN_PUBLIC_BASE_URL", default: ""].isEmpty { base["CUSTODIAN_PUBLIC_BASE_URL"] = publicBaseURL }
        self.base = base
        self.binaries = binaries
        self.logs = logs
        self.databaseURLFiles = databaseURLFiles
        self.sealingKeyFile = sealingKeyFile
        self.lemonKeysFile = lemonKeysFile
        self.gatewayEnvironment = gatewayEnvironment
    }

    /// The replica `instance` of `service` (also what `custodian restart` starts in a lone replica's place).
    func replica(of service: String, named instance: String) -> Supervisor.Program {
        var environment = base
        environment[RuntimeKey.databaseURL + "_FILE"] = databaseURLFiles[service]
        environment[RuntimeKey.instance] = instance
        // Each secret only where it is read.
        if Platform.sealingKeyReaders.contains(service) { environment[RuntimeKey.sealingKey + "_FILE"] = sealingKeyFile }
        if Platform.lemonKeyReaders.contains(service) { environment[RuntimeKey.lemonKeys + "_FILE"] = lemonKeysFile }
        return Supervisor.Program(name: instance, executable: "\(binaries)/\(service)", environment: environment, logFile: "\(logs)/\(instance).log")
    }

    var gateway: Supervisor.Program {
        .init(
            name: "gateway", executable: "\(binaries)/gateway", environment: base.merging(gatewayEnvironment) { _, new in new },
            logFile: "\(logs)/gateway.log")
    }

    /// Every replica `replicas` asks for, service by service, and the gateway last.
    func all(_ replicas: ReplicaCounts) -> [Supervisor.Program] {
        Platform.services.flatMap { service in replicas.instances(of: service).map { replica(of: service, named: $0) } } + [gateway]
    }
}
