import AuthService
import CustodianLemon
import CustodianRPC
import CustodianRuntime
import ServiceTestSupport
import StatisticsService
import Testing
import VaultService

/// `auth` as it runs in the platform, with the two services it calls (the vault for users' keys, statistics for
/// the tracing app's languages), and the tracing app's server keys its handshake uses.
enum AuthHarness {
    /// One RSA key for the whole suite: making one takes a while in a debug build.
    static let keyFile = Result { try ServerKeyFile.generate(id: "auth-tests") }

    /// `settings` are added to every service's configuration.
    static func run<Result: Sendable>(
        settings: [String: String] = [:], _ body: @Sendable (ServiceHarness, ServerKey) async throws -> Result
    ) async throws -> Result {
        let file = try keyFile.get()
        let serverKey = try #require(try file.serverKeys().first)
        return try await ServiceHarness.run(
            [AuthService.definition, VaultService.definition, StatisticsService.definition],
            settings: settings.merging([RuntimeKey.lemonKeys: try file.json()]) { given, _ in given }
        ) { harness in
            try await body(harness, serverKey)
        }
    }

    static let admin = Principal(kind: .admin, id: "test-admin")
}
