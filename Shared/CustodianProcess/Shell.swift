import Foundation

/// Runs helper programs (initdb, pg_ctl, psql, runuser) to completion: for the command line, and for the tests
/// that drive a platform's PostgreSQL.
public enum Shell {
    public struct Failure: Error, CustomStringConvertible {
        public var command: String
        public var status: Int32
        public var output: String
        public var description: String { "\(command) failed with status \(status): \(output.trimmingCharacters(in: .whitespacesAndNewlines))" }
    }

    /// Runs `arguments[0]` with the rest; as `user` (through runuser) when given and we are root. `environment` is added
    /// to this process's (a password for PostgreSQL's tools goes there, never on the command line, which `ps` shows).
    @discardableResult
    public static func run(_ arguments: [String], as user: String? = nil, environment: [String: String] = [:]) throws -> String {
        var command = arguments
        if let user, getuid() == 0 {
            command = ["/usr/sbin/runuser", "-u", user, "--"] + arguments
        }
        // posix_spawn and waitpid rather than Foundation's Process: Process learns that a child exited when a
        // socket it shares with the child closes, and `pg_ctl start` hands that socket on to the server it
        // leaves running, so Process would wait for the server to exit.
        let outputPath = NSTemporaryDirectory() + "custodian-\(UUID().uuidString).out"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned: Int32
        if environment.isEmpty {
            spawned = posix_spawn(&pid, command[0], &actions, nil, &argv, environ)
        } else {
            let merged = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
            var envp: [UnsafeMutablePointer<CChar>?] = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for pointer in envp { free(pointer) } }
            spawned = posix_spawn(&pid, command[0], &actions, nil, &argv, &envp)
        }
        guard spawned == 0 else {
            throw Failure(command: arguments.joined(separator: " "), status: -1, output: String(cString: strerror(spawned)))
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        guard exitStatus == 0 else {
            throw Failure(command: arguments.joined(separator: " "), status: exitStatus, output: output)
        }
        return output
    }

    /// The first executable called `name` on PATH or in the given directories.
    public static func find(_ name: String, extraDirectories: [String] = []) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map(String.init) ?? []
        for directory in path + extraDirectories {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
