@testable import AuthService
import CustodianContracts
import CustodianHTTP
import CustodianRPC
import Foundation
import ServiceTestSupport
import Testing

/// Rotating the access tokens' signing key (docs/jwt.md, "Rotating the signing key"): a new key is published before it
/// signs, a key is retired only once no token it signed can still be valid (or by force), and the key that signs is
/// never retired.
@Suite("auth: rotating the access tokens' signing key")
struct SigningKeyRotationTests {
    static let owner = AdminIdentityTests.owner
    static let hour: TimeInterval = 3600
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A key that signs (or signed, or will sign) from `activates` seconds after ``now``.
    static func key(_ kid: String, activates: TimeInterval, retired: TimeInterval? = nil) -> SigningKeySchedule.Entry {
        SigningKeySchedule.Entry(
            kid: kid, createdAt: now.addingTimeInterval(min(activates, 0) - 60), activatesAt: now.addingTimeInterval(activates),
            retiredAt: retired.map { now.addingTimeInterval($0) })
    }

    static func reason(_ body: () throws -> Any) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as RPCError {
            return error.reason
        } catch {
            return "\(error)"
        }
    }

    @Test func theNewestKeyWhoseTimeHasComeSignsWhileAPublishedOneWaits() throws {
        let schedule = SigningKeySchedule(
            [Self.key("b", activates: -Self.hour), Self.key("a", activates: -5 * Self.hour, retired: -Self.hour / 2), Self.key("c", activates: 120)],
            now: Self.now, longestTokenLifetime: 7200)
        #expect(schedule.signing?.kid == "b" && schedule.pending?.kid == "c")
        #expect(schedule.infos.map(\.kid) == ["c", "b", "a"])
        #expect(schedule.infos.map(\.state) == [.published, .signing, .retired])
        // `b` signs until `c` takes over; the last token it signs expires the longest lifetime after that.
        let b = schedule.infos[1]
        #expect(b.superseded_at == AdminTokens.time(Self.now.addingTimeInterval(120)))
        #expect(b.retirable_at == AdminTokens.time(Self.now.addingTimeInterval(120 + 7200)))
        #expect(schedule.infos[0].superseded_at == nil && schedule.infos[0].retirable_at == nil)
        // One rotation at a time.
        #expect(Self.reason { try schedule.checkRotation() } == "rotation_in_progress")
        let settled = SigningKeySchedule(schedule.entries, now: Self.now.addingTimeInterval(121), longestTokenLifetime: 7200)
        #expect(settled.signing?.kid == "c" && settled.pending == nil)
        #expect(Self.reason { try settled.checkRotation() } == nil)
        #expect(settled.infos.map(\.state) == [.signing, .verifying, .retired])
    }

    @Test func aKeyIsRetiredOnceNoTokenItSignedCanBeValidOrByForce() throws {
        let keys = [Self.key("old", activates: -5 * Self.hour), Self.key("new", activates: -Self.hour)]
        let soon = SigningKeySchedule(keys, now: Self.now, longestTokenLifetime: 7200)
        // `old` stopped signing an hour ago, and its tokens live two.
        #expect(Self.reason { try soon.retirement(of: "old", force: false) } == "tokens_still_valid")
        #expect(try soon.retirement(of: "old", force: true).kid == "old")
        let later = SigningKeySchedule(keys, now: Self.now.addingTimeInterval(Self.hour), longestTokenLifetime: 7200)
        #expect(try later.retirement(of: "old", force: false).kid == "old")

        #expect(Self.reason { try later.retirement(of: "new", force: true) } == "key_still_signs")
        #expect(Self.reason { try later.retirement(of: "nobody", force: true) } == "unknown_signing_key")
        let alone = SigningKeySchedule([Self.key("only", activates: -Self.hour)], now: Self.now, longestTokenLifetime: 7200)
        #expect(Self.reason { try alone.retirement(of: "only", force: true) } == "only_signing_key")
        let rotating = SigningKeySchedule(keys + [Self.key("next", activates: 60)], now: Self.now, longestTokenLifetime: 7200)
        #expect(Self.reason { try rotating.retirement(of: "next", force: true) } == "key_not_signing_yet")
        #expect(Self.reason { try rotating.retirement(of: "new", force: true) } == "key_still_signs")
        // Retiring a retired key answers it as it is.
        let retired = SigningKeySchedule(
            [Self.key("gone", activates: -5 * Self.hour, retired: -60), Self.key("new", activates: -Self.hour)], now: Self.now,
            longestTokenLifetime: 7200)
        #expect(try retired.retirement(of: "gone", force: false).retiredAt == Self.now.addingTimeInterval(-60))
    }

    /// The key id in a token's header.
    static func kid(of token: String) throws -> String {
        let header = try #require(token.split(separator: ".").first)
        var base64 = header.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let json = try JSONSerialization.jsonObject(with: try #require(Data(base64Encoded: base64))) as? [String: Any]
        return try #require(json?["kid"] as? String)
    }

    @Test func aRotationPublishesAKeyAtOnceThatSignsTwiceTheMaxAgeLater() async throws {
        try await AuthHarness.run(settings: ["CUSTODIAN_JWT_KEY_SET_MAX_AGE": "5s"]) { harness, _ in
            _ = try await PasswordThrottleTests.createUser("rotation@example.org", password: "correct horse", on: harness)
            func login() async throws -> String {
                try await harness.call(AuthMethods.oauthToken.forwarded, PasswordThrottleTests.login("rotation@example.org", "correct horse"))
                    .access_token
            }
            let first = try Self.kid(of: try await login())
            let alone = await rpcError { try await harness.call(AuthMethods.signingKeysRetire, SigningKeyRetirement(kid: first), as: Self.owner) }
            #expect(alone?.code == .conflict && alone?.reason == "only_signing_key", "\(String(describing: alone))")

            let published = try await harness.call(AuthMethods.signingKeysRotate, NoInput(), as: Self.owner)
            #expect(published.state == .published && published.kid != first)
            let again = await rpcError { try await harness.call(AuthMethods.signingKeysRotate, NoInput(), as: Self.owner) }
            #expect(again?.code == .conflict && again?.reason == "rotation_in_progress")
            // Published at once, with the max age gateways keep a copy for; signing only from twice that on. The max age
            // is 5 s so that the old key's tokens are seen even on a loaded machine, where a password login has taken
            // over 4 s (CI: the first token was already the new key's with a 2 s max age).
            let set = try await harness.call(AuthMethods.keysList, Empty())
            #expect(Set(set.keys.map(\.kid)) == [first, published.kid] && set.maxAgeSeconds == 5)
            let list = try await harness.call(AuthMethods.signingKeysList, NoInput(), as: Self.owner)
            #expect(list.key_set_max_age == 5 && list.longest_token_lifetime == 7200)
            #expect(list.keys.map(\.kid) == [published.kid, first] && list.keys.map(\.state) == [.published, .signing])
            let created = try #require(ISO8601DateFormatter().date(from: published.created_at))
            let signsFrom = try #require(ISO8601DateFormatter().date(from: published.signs_from))
            #expect(abs(signsFrom.timeIntervalSince(created) - 10) <= 1, "\(published)")
            #expect(list.keys[1].superseded_at == published.signs_from)
            let early = await rpcError { try await harness.call(AuthMethods.signingKeysRetire, SigningKeyRetirement(kid: first), as: Self.owner) }
            #expect(early?.reason == "key_still_signs")
            let unborn = await rpcError {
                try await harness.call(AuthMethods.signingKeysRetire, SigningKeyRetirement(kid: published.kid, force: true), as: Self.owner)
            }
            #expect(unborn?.reason == "key_not_signing_yet")

            // Tokens: the old key's until the new one's time, the new key's from then on.
            var kids: [String] = []
            let deadline = ContinuousClock.now + .seconds(40)
            while kids.last != published.kid && ContinuousClock.now < deadline {
                let before = Date()
                let kid = try Self.kid(of: try await login())
                if kid == published.kid {
                    #expect(Date() >= signsFrom.addingTimeInterval(-1))
                } else {
                    #expect(before < signsFrom.addingTimeInterval(1))
                }
                kids.append(kid)
                try await Task.sleep(for: .milliseconds(250))
            }
            #expect(kids.first == first && kids.last == published.kid, "\(kids)")

            // The old key's tokens may live two hours after it stopped signing: retiring it is refused until then.
            let tooSoon = await rpcError { try await harness.call(AuthMethods.signingKeysRetire, SigningKeyRetirement(kid: first), as: Self.owner) }
            #expect(tooSoon?.code == .conflict && tooSoon?.reason == "tokens_still_valid")
            #expect(tooSoon?.message.contains("force") == true)
            _ = try await harness.scalar(
                "UPDATE auth.signing_keys SET created_at = created_at - interval '3 hours', activates_at = activates_at - interval '3 hours'",
                as: Int.self)
            let retired = try await harness.call(AuthMethods.signingKeysRetire, SigningKeyRetirement(kid: first), as: Self.owner)
            #expect(retired.state == .retired && retired.retired_at != nil)
            let twice = try await harness.call(AuthMethods.signingKeysRetire, SigningKeyRetirement(kid: first), as: Self.owner)
            #expect(twice == retired)
            #expect(try await harness.call(AuthMethods.keysList, Empty()).keys.map(\.kid) == [published.kid])
            let unknown = await rpcError {
                try await harness.call(AuthMethods.signingKeysRetire, SigningKeyRetirement(kid: "no-such-key"), as: Self.owner)
            }
            #expect(unknown?.code == .notFound && unknown?.reason == "unknown_signing_key")
        }
    }
}
