import Foundation
import ServiceLifecycle

/// Ends the process gracefully when the supervisor that started it (`custodian up`, a test) is gone, so that
/// no replica outlives it. Enabled by `CUSTODIAN_PARENT_PID`.
public struct ParentWatch: Service {
    public static let key = "CUSTODIAN_PARENT_PID"
    let parent: pid_t

    public init?(configuration: Configuration) {
        guard let text = configuration[Self.key], let parent = pid_t(text) else { return nil }
        self.parent = parent
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while getppid() == parent {
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }
}
