import NIOCore

/// Runs a task's jobs on one event loop. A connection's handling is mostly passing bytes between channels of
/// that loop; running it there saves the two thread wake-ups every hand-over between the loop and Swift's
/// global executor costs (30–60 µs each on a small machine, more than the work itself). Work that takes the CPU
/// for long (password hashing, large bodies) leaves the loop with `withTaskExecutorPreference(globalConcurrentExecutor)`,
/// so that it does not hold up the loop's other channels.
public final class EventLoopTaskExecutor: TaskExecutor, Sendable {
    public let eventLoop: any EventLoop

    public init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        eventLoop.execute { job.runSynchronously(on: executor) }
    }
}

/// Where work runs when it would hold an event loop for long.
public enum OffLoop {
    /// Bodies and frames from this size up are handled off the event loop: reading and writing their JSON takes
    /// milliseconds (a vault batch of 1000 records is 330 KB and 5 ms).
    public static let largeBodySize = 64 * 1024

    /// Runs `work` on Swift's global executor.
    public static func run<Result: Sendable>(_ work: () async throws -> Result) async rethrows -> Result {
        try await withTaskExecutorPreference(globalConcurrentExecutor, operation: work)
    }
}
