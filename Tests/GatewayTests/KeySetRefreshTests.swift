import CustodianContracts
import CustodianJWT
import Foundation
import HummingbirdTesting
import Testing

/// The gateway's copy of the access tokens' key set is kept as long as `auth` says (the set's max age), so that a key
/// `auth` retires is refused, and one it publishes accepted, within that time at every gateway (docs/jwt.md).
@Suite("Gateway: the access tokens' key set is fetched again after its max age")
struct KeySetRefreshTests {
    static func status(_ token: String, _ client: any TestClientProtocol) async throws -> Int {
        try await client.execute(uri: "/admin/v1/jwt", method: .get, headers: [.authorization: "Bearer \(token)"]) { Int($0.status.code) }
    }

    @Test func aKeyLeftOutOfTheSetIsRefusedOnceTheCopyIsOlderThanTheMaxAge() async throws {
        try await GatewayHarness.withGateway { client, harness in
            let old = try await harness.accessToken()
            let next = SigningKey.generate()
            harness.published.publish(PublicKeySet(keys: [harness.signingKey.publicJWK!, next.publicJWK!], maxAgeSeconds: 1))
            #expect(try await Self.status(old, client) == 200)
            #expect(try await Self.status(try await harness.accessToken(key: next), client) == 200)
            // The old key retired: refused once the copy is a second old, while the new key's tokens pass.
            harness.published.publish(PublicKeySet(keys: [next.publicJWK!], maxAgeSeconds: 1))
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try await Self.status(old, client) == 401)
            #expect(try await Self.status(try await harness.accessToken(key: next), client) == 200)
        }
    }

    /// An `auth` of before key rotation says no max age: the copy is kept a minute, as it always was.
    @Test func aSetWithoutAMaxAgeIsKeptAMinute() async throws {
        try await GatewayHarness.withGateway { client, harness in
            let old = try await harness.accessToken()
            #expect(try await Self.status(old, client) == 200)
            harness.published.publish(PublicKeySet(keys: [SigningKey.generate().publicJWK!]))
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try await Self.status(old, client) == 200)
        }
    }
}
