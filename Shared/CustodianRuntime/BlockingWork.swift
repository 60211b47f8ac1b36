import NIOPosix

/// Work that holds a CPU for tens of milliseconds at a stretch, such as Argon2 (password hashes and keys derived from
/// passwords: ~100 ms and 64 MiB each). It runs on NIO's pool for blocking work: on Swift's cooperative pool it would
/// hold one of its few threads (two on a 2-core machine) while every task waiting to resume there (a database
/// connection handed over, an RPC answer, a timer) waits behind it; under a burst of logins that wait outlasted the
/// database wait timeout and answered 503s.
public enum BlockingWork {
    public static func run<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await NIOThreadPool.singleton.runIfActive(work)
    }
}
