import Foundation
import Testing

extension OneAtATime {
    /// `custodian rotate db-password` (docs/operations.md, "Rotating database passwords") under load: no request fails
    /// and no acknowledged write is lost; afterwards the service logs in with the new password only, the old login can
    /// no longer log in at all, and a second rotation moves it back.
    @Suite("Rotating database passwords", .runningPlatform)
    struct DatabasePasswordRotation {
        @Test func passwordsRotateUnderLoadWithoutAFailedRequest() async throws {
            let platform = try platform
            let reportPath = NSTemporaryDirectory() + "rotation-loadgen-\(UUID().uuidString).json"
            defer { try? FileManager.default.removeItem(atPath: reportPath) }
            let before = try String(contentsOfFile: platform.dataDirectory + "/secrets/db-devices.url", encoding: .utf8)
            async let load = platform.custodian([
                "loadgen", "--server", platform.baseURL, "--data-dir", platform.dataDirectory, "--report", reportPath, "--scenario", "mixed",
                "--duration", "20s", "--rate", "15", "--ramp-up", "1s", "--clients", "2",
            ])
            try await Task.sleep(for: .seconds(3))
            let first = try await platform.custodian(["rotate", "db-password", "devices", "vault", "--data-dir", platform.dataDirectory])
            #expect(first.status == 0, "\(first.output)")
            #expect(
                first.output.contains("devices    logs in as custodian_devices_login with a new password; custodian_devices closed"),
                "\(first.output)")
            let after = try String(contentsOfFile: platform.dataDirectory + "/secrets/db-devices.url", encoding: .utf8)
            let back = try await platform.custodian(["rotate", "db-password", "devices", "--data-dir", platform.dataDirectory])
            #expect(back.status == 0 && back.output.contains("logs in as custodian_devices with a new password"), "\(back.output)")
            let run = try await load
            #expect(run.status == 0, "\(run.output)")
            let report = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any]
            let total = try #require(report?["total"] as? [String: Any], "\(String(describing: report))")
            #expect(total["errors"] as? Int == 0 && (total["operations"] as? Int ?? 0) > 200, "\(total)")
            for check in try #require(report?["verification"] as? [[String: Any]]) {
                #expect(check["lost"] as? Int == 0 && check["duplicated"] as? Int == 0, "\(check)")
            }

            // Only the login in use logs in, with its newest password; the two earlier passwords open nothing.
            let now = try String(contentsOfFile: platform.dataDirectory + "/secrets/db-devices.url", encoding: .utf8)
            #expect(try platform.sql("SELECT current_user, count(*) FROM devices.devices GROUP BY 1", in: now).hasPrefix("custodian_devices|"))
            for old in [before, after] {
                #expect(throws: (any Error).self, "an earlier password still logs in") { try platform.sql("SELECT 1", in: old) }
            }
            #expect(try platform.sql("SELECT rolcanlogin, rolpassword IS NULL FROM pg_authid WHERE rolname = 'custodian_devices_login'") == "f|t")
            // The alternate login acts as the service's role: what vault creates there belongs to custodian_vault.
            let vault = try String(contentsOfFile: platform.dataDirectory + "/secrets/db-vault.url", encoding: .utf8)
            #expect(try platform.sql("SELECT current_user, current_setting('search_path')", in: vault) == "custodian_vault|vault")
        }

        @Test func badInputIsRefused() async throws {
            let platform = try platform
            for (arguments, expected) in [
                (["rotate", "db-password", "gateway", "--data-dir", platform.dataDirectory], "unknown service 'gateway'"),
                (["rotate", "db-password", "--data-dir", platform.dataDirectory], "Missing expected argument"),
                (["rotate", "db-password", "devices", "--data-dir", "/nonexistent"], "no `custodian up` has run with the data directory"),
            ] {
                let result = try await platform.custodian(arguments)
                #expect(result.status != 0 && result.output.contains(expected), "\(arguments): \(result.output)")
            }
            let help = try await platform.custodian(["rotate", "db-password", "--help"])
            #expect(help.status == 0 && help.output.contains("USAGE: custodian rotate db-password"))
        }
    }
}
