import ArgumentParser
import CustodianRuntime
import Foundation
import ServiceLifecycle
import UnixSignals

/// `custodian restart SERVICE`: asks a running `custodian up` to replace the service's replicas one by one, and waits
/// until it has. The request is a file in the data directory's `control` folder and a SIGHUP to `custodian up`.
struct Restart: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replaces a service's replicas one at a time in a running `custodian up`, without a failed request.")

    @Argument(help: "The service: \(Platform.services.joined(separator: ", ")).") var service: String
    @Option(help: "The data directory of the running `custodian up`.") var dataDir = ".custodian"

    func run() async throws {
        guard Platform.services.contains(service) else {
            throw ValidationError("unknown service '\(service)'; the services are \(Platform.services.joined(separator: ", "))")
        }
        try await Self.replace(service, dataDirectory: Files.absolute(dataDir), named: dataDir)
        print("\(service): every replica replaced")
    }

    /// Asks the `custodian up` running with `dataDirectory` (as the user named it: `name`) to replace `service`'s
    /// replicas, and returns once it has; throws when none runs or a replica did not come back.
    static func replace(_ service: String, dataDirectory: String, named name: String) async throws {
        let control = RestartRequests.controlDirectory(dataDirectory)
        guard let pid = runningUp(dataDirectory) else {
            throw CLIError("no `custodian up` is running with the data directory \(name)")
        }
        let done = "\(control)/\(service).done"
        try? FileManager.default.removeItem(atPath: done)
        try Files.write(service, to: "\(control)/\(service).request", mode: 0o644)
        kill(pid, SIGHUP)
        let deadline = ContinuousClock.now + .seconds(180)
        while ContinuousClock.now < deadline {
            if let outcome = Files.read(done) {
                try? FileManager.default.removeItem(atPath: done)
                guard outcome == "ok" else { throw CLIError("\(service): \(outcome); see `custodian up`'s output and the logs") }
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw CLIError("\(service): not replaced within 3 minutes; see `custodian up`'s output and the logs")
    }

    /// The process id of the `custodian up` running with `dataDirectory`, if one is.
    static func runningUp(_ dataDirectory: String) -> pid_t? {
        guard let text = Files.read(RestartRequests.pidFile(dataDirectory)), let pid = pid_t(text), kill(pid, 0) == 0 else { return nil }
        return pid
    }
}

/// In `custodian up`: on SIGHUP, carries out the restart requests `custodian restart` left in the control folder.
struct RestartRequests: Service {
    let dataDirectory: String
    let supervisor: Supervisor
    let replicas: ReplicaCounts
    /// The program of a replica of `service` named `instance`, for the temporary one a lone replica's restart needs.
    let program: @Sendable (_ service: String, _ instance: String) -> Supervisor.Program
    /// The replica's socket file (``SocketFile/identity(_:)``), once it has migrated and listens.
    let socket: @Sendable (_ service: String, _ instance: String) -> UInt64?

    static func controlDirectory(_ dataDirectory: String) -> String { dataDirectory + "/control" }

    static func pidFile(_ dataDirectory: String) -> String { dataDirectory + "/pids/custodian.pid" }

    func run() async throws {
        let control = Self.controlDirectory(dataDirectory)
        try Files.makeDirectory(control, mode: 0o755)
        let signals = await UnixSignalsSequence(trapping: .sighup)
        // `custodian restart` finds this process here, once a SIGHUP no longer ends it.
        try Files.write(String(getpid()), to: Self.pidFile(dataDirectory), mode: 0o644)
        defer { try? FileManager.default.removeItem(atPath: Self.pidFile(dataDirectory)) }
        for await _ in signals.cancelOnGracefulShutdown() {
            let requests = ((try? FileManager.default.contentsOfDirectory(atPath: control)) ?? []).filter { $0.hasSuffix(".request") }
            for request in requests.sorted() {
                try? FileManager.default.removeItem(atPath: "\(control)/\(request)")
                let service = String(request.dropLast(".request".count))
                guard Platform.services.contains(service) else { continue }
                let instances = replicas.instances(of: service)
                let plural = instances.count == 1 ? "" : "s"
                TerminalOutput.say("\(TerminalOutput.column("restart"))\(service): replacing \(instances.count) replica\(plural) one at a time")
                let surge = instances.count == 1 ? program(service, "\(service)-surge") : nil
                let replaced = await supervisor.rollingRestart(instances, surge: surge) { instance in socket(service, instance) }
                TerminalOutput.say("\(TerminalOutput.column("restart"))\(service): \(replaced ? "done" : "failed")")
                try? Files.write(replaced ? "ok" : "a replica did not come back within a minute", to: "\(control)/\(service).done", mode: 0o644)
            }
        }
    }
}
