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
        /// Why the supervisor stopped everything by itself (a program that cannot start).
        var failure: CLIError?
    }

    /// A program that exits this many times in a row, each within `quickExitSeconds` of starting, cannot start: restarting it
    /// for ever only hides why (a port in use, a missing secret), so everything stops and the reason is printed.
    static let attemptsBeforeGivingUp = 5
    static let quickExitSeconds = 10

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
            self.stopAll()
        }
        if let failure = state.withLock({ $0.failure }) { throw failure }
    }

    /// Sends every program SIGTERM, and SIGKILL to those still running 30 s later.
    private func stopAll() {
        let running = state.withLock { state in
            state.stopping = true
            return state.running
        }
        for (name, pid) in running {
            TerminalOutput.say("\(TerminalOutput.column(name))stopping (pid \(pid))")
            kill(pid, SIGTERM)
        }
        // A program that ignores SIGTERM must not keep `custodian up` (and its PostgreSQL) from stopping.
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) {
            let remaining = self.state.withLock { $0.running }
            for (name, pid) in remaining where running[name] == pid {
                TerminalOutput.warn("\(name): did not stop within 30 s of SIGTERM; killing pid \(pid)")
                kill(pid, SIGKILL)
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
                TerminalOutput.say("\(TerminalOutput.column(name))replacing (pid \(old))")
                kill(old, SIGTERM)
                replaced = await waitUntil { (self.pid(of: name) ?? old) != old && socket(name).map { $0 != oldSocket } == true }
                // Callers list the runtime directory every half second: let them find the new replica first.
                try? await Task.sleep(for: .seconds(1))
            }
            if let surge, let pid = pid(of: surge.name) {
                TerminalOutput.say("\(TerminalOutput.column(surge.name))stopping (pid \(pid)): the replica it stood in for is back")
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
        var quickFailures = 0
        while !isStopping {
            let status: Int32
            let started = ContinuousClock.now
            do {
                status = try await runOnce(program, restarts: restarts)
            } catch {
                TerminalOutput.warn("\(program.name): cannot start \(program.executable): \(error)")
                return
            }
            if isStopping { break }
            restarts += 1
            let reason = Self.lastError(inLog: program.logFile)
            TerminalOutput.say(
                "\(TerminalOutput.column(program.name))exited with status \(status)\(reason.map { ": \($0)" } ?? ""); restarting in \(restartDelay)")
            quickFailures = status != 0 && ContinuousClock.now - started < .seconds(Self.quickExitSeconds) ? quickFailures + 1 : 0
            if quickFailures >= Self.attemptsBeforeGivingUp {
                let failure = CLIError(
                    "\(program.name) exited \(quickFailures) times in a row within \(Self.quickExitSeconds) s of starting\(reason.map { ", last: \($0)" } ?? ""); "
                        + "stopping everything (its log: \(program.logFile))")
                TerminalOutput.warn("custodian: \(failure.description)")
                state.withLock { $0.failure = failure }
                stopAll()
                break
            }
            try? await Task.sleep(for: restartDelay)
        }
        TerminalOutput.say("\(TerminalOutput.column(program.name))stopped")
    }

    /// Why a program stopped, from the end of its log: the last line logged at level error or critical, or the last
    /// line when it is no log record at all (a process that cannot read its settings says so on standard error).
    static func lastError(inLog path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.seek(toOffset: size > 16_384 ? size - 16_384 : 0)
        let lines = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        let levels = [" trace ", " debug ", " info ", " notice ", " warning ", #""level":"#]
        let isError = { (line: Substring) in
            line.contains(" critical ") || line.contains(" error ") || line.contains(#""level":"critical""#) || line.contains(#""level":"error""#)
        }
        guard
            let line = lines.last.flatMap({ last in levels.contains(where: last.contains) && !isError(last) ? nil : last })
                ?? lines.last(where: isError)
        else { return nil }
        return String(line.trimmingCharacters(in: .whitespaces).prefix(400))
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
            TerminalOutput.say("\(TerminalOutput.column(program.name))\(verb) (pid \(pid), log \(program.logFile))")
        }
    }
}
