import Foundation
import Testing

extension RunningPlatform {
    /// `custodian loadgen`'s mixed scenario at a gentle 15 requests a second for `seconds`, beside something a test does to
    /// the platform meanwhile (a key rotation, a certificate renewal): its report, once checked that no request failed and
    /// every acknowledged write was read back once. `extra`: further options (`--ca-file`).
    func gentleLoad(seconds: Int, extra: [String] = []) async throws -> OneAtATime.LoadTests.Report {
        let reportPath = NSTemporaryDirectory() + "gentle-load-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: reportPath) }
        let run = try await custodian(
            [
                "loadgen", "--server", baseURL, "--data-dir", dataDirectory, "--report", reportPath, "--scenario", "mixed",
                "--duration", "\(seconds)s", "--rate", "15", "--ramp-up", "1s", "--clients", "2",
            ] + extra)
        #expect(run.status == 0, "\(run.output)")
        let report = try JSONDecoder().decode(OneAtATime.LoadTests.Report.self, from: try Data(contentsOf: URL(fileURLWithPath: reportPath)))
        #expect(report.total.operations > 0 && report.total.errors == 0, "\(report.total.statuses) \(run.output)")
        #expect(report.verification.allSatisfy { $0.lost == 0 && $0.duplicated == 0 && $0.found == $0.acknowledged }, "\(run.output)")
        return report
    }
}
