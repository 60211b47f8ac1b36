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
                Console.say("\(name.padding(toLength: 10, withPad: " ", startingAt: 0)) stopping (pid \(pid))")
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
            Console.say("\(program.name.padding(toLength: 10, withPad: " ", startingAt: 0)) exited with status \(status); restarting in \(restartDelay)")
            try? await Task.sleep(for: restartDelay)
        }
        Console.say("\(program.name.padding(toLength: 10, withPad: " ", startingAt: 0)) stopped")
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
            Console.say("\(program.name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(verb) (pid \(pid), log \(program.logFile))")
        }
    }
}
