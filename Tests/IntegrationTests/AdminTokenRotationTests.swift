import Foundation
import Synchronization
import Testing

extension PlatformTests {
    /// Rotating an admin token (docs/operations.md, "Rotating admin tokens and the RPC certificates"): a client that
    /// keeps calling the admin API moves from the old token to the new one without a failed call, and the old one is
    /// refused as soon as it is revoked.
    @Suite("Rotating admin tokens")
    struct AdminTokenRotation {
        typealias AdminAudit = PlatformTests.AdminAudit

        @Test func aClientMovesToTheNewTokenWithoutAFailedCall() async throws {
            let platform = try platform
            let old = try await AdminAudit.identity("researcher", label: "rotation old")
            let token = Mutex(old.token)
            let failures = Mutex<[String]>([])
            let calls = Atomic<Int>(0)
            let stop = Atomic<Bool>(false)
            async let client: Void = { () async -> Void in
                while !stop.load(ordering: .relaxed) {
                    let current = token.withLock { $0 }
                    let reply = try? await platform.request(.GET, "/admin/v1/device-types", headers: AdminAudit.bearer(current))
                    calls.add(1, ordering: .relaxed)
                    if reply?.status != 200 { failures.withLock { $0.append("\(reply?.status ?? 0) \(reply?.text.prefix(200) ?? "")") } }
                    try? await Task.sleep(for: .milliseconds(20))
                }
            }()
            // Calls under each token, however slow the machine: the client's count is waited for, not a time.
            let deadline = ContinuousClock.now + .seconds(60)
            while calls.load(ordering: .relaxed) < 5, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            let new = try await AdminAudit.identity("researcher", label: "rotation new")
            token.withLock { $0 = new.token }
            try await Task.sleep(for: .milliseconds(200))
            let revoked = try await platform.request(.DELETE, "/admin/v1/tokens/\(old.id)", admin: true)
            #expect(revoked.status == 200, "\(revoked.text)")
            let refused = try await platform.request(.GET, "/admin/v1/device-types", headers: AdminAudit.bearer(old.token))
            #expect(refused.status == 401, "the revoked token still works: \(refused.text)")
            let afterRevocation = calls.load(ordering: .relaxed) + 5
            while calls.load(ordering: .relaxed) < afterRevocation, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            stop.store(true, ordering: .relaxed)
            await client
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
            #expect(calls.load(ordering: .relaxed) >= 10)
        }
    }
}
