import Foundation
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

extension BlockingWork {
    /// Work that waits for long rather than computes (a child process that may run for minutes, such as pip making
    /// the test tools' environment), on a thread of its own. On the cooperative pool it would stall every task of the
    /// process, as above; on NIO's pool it would stall the Argon2 work queued there.
    public static func onItsOwnThread<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Swift.Result { try work() }) }.start()
        }
    }
}
