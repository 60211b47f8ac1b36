import AsyncHTTPClient
import CustodianRuntime
import Foundation
import NIOCore

/// A second gateway on the same services, as a second replica behind a load balancer would be.
final class SecondGateway: Sendable {
    let process: Process
    let baseURL: String

    init(_ platform: RunningPlatform) async throws {
        let port = try FreePort.find()
        baseURL = "http://127.0.0.1:\(port)"
        process = Process()
        process.executableURL = URL(fileURLWithPath: platform.binaries + "/gateway")
        var environment = ProcessInfo.processInfo.environment
        environment["CUSTODIAN_DATABASE_URL"] = nil
        environment.merge([
            "CUSTODIAN_RUNTIME_DIR": platform.dataDirectory + "/run", "CUSTODIAN_HTTP_PORT": String(port), "CUSTODIAN_INSECURE_HTTP": "1",
            "CUSTODIAN_RATE_LIMITS": "off", "CUSTODIAN_AUDIT_HEAD_INTERVAL": "1s",
        ]) { _, new in new }
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(30)
        while (try? await platform.http.get(url: baseURL + "/healthz").get().status) != .ok {
            guard ContinuousClock.now < deadline, process.isRunning else { throw PlatformError("the second gateway did not start") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    func status(_ path: String, token: String, platform: RunningPlatform) async throws -> Int {
        var request = HTTPClientRequest(url: baseURL + path)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        return Int(try await platform.http.execute(request, timeout: .seconds(10)).status.code)
    }

    /// The audit head this gateway publishes on /metrics, once it is at least `seq`.
    func publishedHead(atLeast seq: Int, platform: RunningPlatform) async throws -> (seq: Int, hash: String) {
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            let body = try await platform.http.get(url: baseURL + "/metrics").get().body.map { String(buffer: $0) } ?? ""
            if let line = body.split(separator: "\n").first(where: { $0.hasPrefix("custodian_audit_head{") }),
                let hash = line.split(separator: "\"").dropFirst().first, let value = line.split(separator: " ").last.flatMap({ Int($0) }),
                value >= seq
            {
                return (value, String(hash))
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw PlatformError("no audit head at or after \(seq) on /metrics")
    }
}
