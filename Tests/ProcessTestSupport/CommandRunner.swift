import Foundation

/// Runs a program to completion, its standard output and standard error into files (a pipe could fill up and stall
/// it), waiting without holding one of the few threads every test shares: an upload to an unreachable server takes
/// seconds, and on a fresh machine a script that makes the Python tools' environment first takes a minute or more.
public enum CommandRunner {
    /// Each stream's text; with `together`, both went into one file and `stderr` is empty. `directory`: where it runs
    /// (default: where the tests run).
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil, together: Bool
    )
        async throws -> (status: Int32, stdout: String, stderr: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let base = NSTemporaryDirectory() + "cit-cli-\(UUID().uuidString)"
        let suffixes = together ? [".out"] : [".out", ".err"]
        var handles: [FileHandle] = []
        defer {
            for handle in handles { try? handle.close() }
            for suffix in suffixes { try? FileManager.default.removeItem(atPath: base + suffix) }
        }
        for suffix in suffixes {
            _ = FileManager.default.createFile(atPath: base + suffix, contents: nil)
            handles.append(try FileHandle(forWritingTo: URL(fileURLWithPath: base + suffix)))
        }
        process.standardOutput = handles[0]
        process.standardError = handles[together ? 0 : 1]
        process.standardInput = FileHandle.nullDevice
        let status = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, any Error>) in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        let read = { (suffix: String) in (try? String(contentsOfFile: base + suffix, encoding: .utf8)) ?? "" }
        return (status, read(".out"), together ? "" : read(".err"))
    }
}
