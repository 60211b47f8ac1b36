import Foundation
import ServiceLifecycle
import Synchronization

/// Keeps a set of programs running: starts each, restarts one that exits, and on graceful shutdown sends
/// every program SIGTERM and waits for them all to stop.
final class Supervisor: Service, Sendable {
    struct Program: Sendable {
        var name: String
        var executable: String
        var arguments: [String] = []
        var environment: [String: String]
        var logFile: String
    }

    private let programs: [Program]
    private let restartDelay: Duration
    private let pidDirectory: String
    private let state = Mutex(State())

    private struct State {
        var stopping = false
        var running: [String: pid_t] = [:]
    }

    init(programs: [Program], restartDelay: Duration, pidDirectory: String) {
        self.programs = programs
        self.restartDelay = restartDelay
        self.pidDirectory = pidDirectory
    }

    func run() async throws {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                for program in programs {
                    group.addTask { await self.keepRunning(program) }
                }
            }
        } onGracefulShutdown: {
            let running = self.state.withLock { state in
                state.stopping = true
                return state.running
            }
            for (name, pid) in running {
                Console.say("\(Console.column(name))stopping (pid \(pid))")
                kill(pid, SIGTERM)
            }
            // A program that ignores SIGTERM must not keep `custodian up` (and its PostgreSQL) from stopping.
            DispatchQueue.global().asyncAfter(deadline: .now() + 30) {
                let remaining = self.state.withLock { $0.running }
                for (name, pid) in remaining where running[name] == pid {
                    Console.warn("\(name): did not stop within 30 s of SIGTERM; killing pid \(pid)")
                    kill(pid, SIGKILL)
                }
            }
        }
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    /// Replaces the named replicas one at a time, each once the one before is back (`socket`: the replica's socket file,
    /// a new one is there, ``SocketFile``), so that the others carry the load meanwhile; a stopping replica finishes its calls
    /// and its callers go elsewhere.
    /// A service that runs once first gets a temporary replica (`surge`), stopped once the replacement is ready.
    /// Returns whether every replica came back within a minute.
    func rollingRestart(_ names: [String], surge: Program?, socket: @escaping @Sendable (String) -> UInt64?) async -> Bool {
        await withTaskGroup(of: Void.self) { group in
            if let surge {
                group.addTask { _ = try? await self.runOnce(surge, restarts: 0) }
                guard await waitUntil({ self.pid(of: surge.name) != nil && socket(surge.name) != nil }) else {
                    if let pid = pid(of: surge.name) { kill(pid, SIGTERM) }
                    return false
                }
                try? await Task.sleep(for: .seconds(1))
            }
            var replaced = true
            for name in names where replaced {
                guard let old = pid(of: name) else { continue }
                let oldSocket = socket(name)
                Console.say("\(Console.column(name))replacing (pid \(old))")
                kill(old, SIGTERM)
                replaced = await waitUntil { (self.pid(of: name) ?? old) != old && socket(name).map { $0 != oldSocket } == true }
                // Callers list the runtime directory every half second: let them find the new replica first.
                try? await Task.sleep(for: .seconds(1))
            }
            if let surge, let pid = pid(of: surge.name) {
                Console.say("\(Console.column(surge.name))stopping (pid \(pid)): the replica it stood in for is back")
                kill(pid, SIGTERM)
                try? FileManager.default.removeItem(atPath: "\(pidDirectory)/\(surge.name).pid")
            }
            return replaced
        }
    }

    private func pid(of name: String) -> pid_t? { state.withLock { $0.running[name] } }

    private func waitUntil(_ condition: @escaping @Sendable () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            guard ContinuousClock.now < deadline, !isStopping else { return false }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return true
    }

    private func keepRunning(_ program: Program) async {
        var restarts = 0
        while !isStopping {
            let status: Int32
            do {
                status = try await runOnce(program, restarts: restarts)
            } catch {
                Console.warn("\(program.name): cannot start \(program.executable): \(error)")
                return
            }
            if isStopping { break }
            restarts += 1
            Console.say("\(Console.column(program.name))exited with status \(status); restarting in \(restartDelay)")
            try? await Task.sleep(for: restartDelay)
        }
        Console.say("\(Console.column(program.name))stopped")
    }

    /// Starts the program and waits for it to exit; returns its exit status.
    private func runOnce(_ program: Program, restarts: Int) async throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program.executable)
        process.arguments = program.arguments
        process.environment = program.environment
        process.standardInput = FileHandle.nullDevice
        if !FileManager.default.fileExists(atPath: program.logFile) {
            _ = FileManager.default.createFile(atPath: program.logFile, contents: nil)
        }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: program.logFile))
        try log.seekToEnd()
        process.standardOutput = log
        process.standardError = log
        defer { try? log.close() }

        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, any Error>) in
            process.terminationHandler = { finished in
                // An exited process's pid may be reused: never signal it again.
                self.state.withLock { state in
                    if state.running[program.name] == finished.processIdentifier { state.running[program.name] = nil }
                }
                continuation.resume(returning: finished.terminationStatus)
            }
            do {
                // A shutdown that began while we were starting must still reach this process.
                let stopping: Bool = try state.withLock { state in
                    try process.run()
                    state.running[program.name] = process.processIdentifier
                    return state.stopping
                }
                if stopping { kill(process.processIdentifier, SIGTERM) }
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            let pid = process.processIdentifier
            try? Files.write(String(pid), to: "\(pidDirectory)/\(program.name).pid", mode: 0o644)
            let verb = restarts == 0 ? "started" : "restarted"
            Console.say("\(Console.column(program.name))\(verb) (pid \(pid), log \(program.logFile))")
        }
    }
}
