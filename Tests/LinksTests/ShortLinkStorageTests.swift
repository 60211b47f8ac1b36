import CustodianContracts
import CustodianRPC
import Foundation
@testable import LinksService
import PostgresNIO
import ServiceTestSupport
import Testing

/// What `links` keeps of a short link: its app URL sealed, and the row only a week past its expiry.
@Suite("Short links: storage")
struct ShortLinkStorageTests {
    @Test func linksExpiredForAWeekAreDeletedAndOthersStay() async throws {
        try await ServiceHarness.run([LinksService.definition]) { harness in
            var codes: [String] = []
            for _ in 0..<3 {
                let link = try await harness.call(
                    LinksMethods.shortCreate, ShortLinkInput(appURL: "warmtewachter://account/secret-token", ttlSeconds: 60))
                codes.append(link.code)
            }
            try await harness.database.query(
                "UPDATE links.short_links SET expires_at = now() - interval '8 days' WHERE code = \(codes[0])", logger: harness.logger)
            try await harness.database.query(
                "UPDATE links.short_links SET expires_at = now() - interval '6 days' WHERE code = \(codes[1])", logger: harness.logger)
            try await ShortLinks.expiredRowsUpkeep.work(harness.database, harness.logger)
            let left = try await harness.scalar("SELECT string_agg(code, ',' ORDER BY code) FROM links.short_links", as: String.self)
            #expect(left == [codes[1], codes[2]].sorted().joined(separator: ","))
            // And what stays holds no app URL in the clear.
            #expect(try await harness.scalar("SELECT count(*)::int FROM links.short_links WHERE app_url IS NOT NULL", as: Int.self) == 0)
        }
    }
}
