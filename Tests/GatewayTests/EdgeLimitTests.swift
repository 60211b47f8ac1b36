import CustodianRPC
import CustodianProcess
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import GatewayKit

@Suite("Gateway limits: NUL characters, rate limits, client addresses")
struct EdgeLimitUnitTests {
    private func json(_ buffer: ByteBuffer) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView))) as? [String: Any]
    }

    static let nulMessage = "The request contains a NUL character (U+0000), which no field may hold"

    @Test func aNULCharacterAnywhereIsA400InTheRoutesStyleBeforeAnyServiceSeesIt() async throws {
        try await GatewayHarness.withGateway { client, _ in
            // JSON value, JSON key, form field, text body, path and query: each refused, none echoed back.
            let cases: [(String, HTTPRequest.Method, String?, HTTPFields)] = [
                ("/account/echo", .post, #"{"name":"a\u0000b"}"#, [:]),
                ("/account/echo", .post, #"{"a\u0000":1}"#, [:]),
                ("/register", .post, "device_id=%00", [.contentType: "application/x-www-form-urlencoded"]),
                ("/route/text", .post, "abc\u{0}def", [:]),
                ("/api/v1/echo/a%00b", .get, nil, [:]),
                ("/account/echo?x=%00", .post, "{}", [:]),
            ]
            for (path, method, body, headers) in cases {
                try await client.execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) { response in
                    #expect(response.status == .badRequest, "\(path)")
                    let answer = json(response.body)
                    let message =
                        answer?["detail"] as? String ?? answer?["error"] as? String ?? answer?["message"] as? String
                        ?? (answer?["meta"] as? [String: Any])?["message"] as? String
                    #expect(message == Self.nulMessage || answer?["error"] as? String == "nul_character", "\(path): \(String(buffer: response.body))")
                    #expect(answer?["input"] == nil, "the service was called")
                }
            }
        }
    }

    @Test func aClientOverItsRateGets429WithRetryAfterInTheRoutesStyle() async throws {
        try await GatewayHarness.withGateway(settings: ["CUSTODIAN_RATE_LIMIT_STANDARD": "3/1m"]) { client, _ in
            let started = ContinuousClock.now
            for _ in 0..<3 {
                try await client.execute(uri: "/account/echo", method: .post, body: ByteBuffer(string: "{}")) { #expect($0.status == .ok) }
            }
            try await client.execute(uri: "/account/echo", method: .post, body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .tooManyRequests)
                // One request back every 20 s, less the time the three took (seconds on a loaded machine).
                let elapsed = Int((ContinuousClock.now - started).components.seconds)
                let seconds = try #require(response.headers[.retryAfter].flatMap(Int.init))
                #expect((max(1, 20 - elapsed - 1)...20).contains(seconds), "\(elapsed) s went by")
                #expect(String(buffer: response.body) == #"{"detail":"Too many requests; try again in \#(seconds) seconds"}"# + "\n")
            }
            try await client.execute(uri: "/admin/v1/echo", method: .post, body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .tooManyRequests)
                #expect((json(response.body)?["error"] as? [String: Any])?["reason"] as? String == "rate_limited")
            }
        }
    }

    @Test func rateLimitsAreReadAsCountPerDuration() throws {
        #expect(RateLimit(parsing: "20/1m") == RateLimit(20, per: .seconds(60)))
        #expect(RateLimit(parsing: "1000/1s") == RateLimit(1000, per: .seconds(1)))
        for bad in ["20", "x/1m", "0/1s", "-1/1s", "20/0s", "20/forever", "99999999999999999999/1s"] {
            #expect(RateLimit(parsing: bad) == nil, "\(bad)")
        }
        let settings = try RateLimitSettings(
            Configuration(
                environment: [
                    "CUSTODIAN_RATE_LIMIT_CREDENTIAL": "5/10s", "CUSTODIAN_TRUSTED_PROXIES": "10.0.0.0/8, ::1", "CUSTODIAN_RATE_LIMITS": "off",
                ], arguments: []))
        #expect(settings.credentialPerAddress == RateLimit(5, per: .seconds(10)))
        #expect(!settings.enabled)
        #expect(settings.trustedProxies.count == 2)
        #expect(throws: ConfigurationError.self) {
            try RateLimitSettings(Configuration(environment: ["CUSTODIAN_RATE_LIMIT_STANDARD": "lots"], arguments: []))
        }
        #expect(throws: ConfigurationError.self) {
            try RateLimitSettings(Configuration(environment: ["CUSTODIAN_TRUSTED_PROXIES": "proxy.local"], arguments: []))
        }
    }

    @Test func aBucketEmptiesRefillsAndSaysWhenToComeBack() {
        var settings = RateLimitSettings()
        settings.standardPerAddress = RateLimit(3, per: .seconds(30))
        let limiter = RateLimiter(settings: settings)
        let key = RateLimiter.Key(rateClass: .standard, scope: .address, value: "192.0.2.1")
        let start = ContinuousClock.now
        for _ in 0..<3 { #expect(limiter.take(key, now: start) == .allowed) }
        #expect(limiter.take(key, now: start) == .refused(retryAfter: 10))
        #expect(limiter.check(key, now: start + .seconds(4)) == .refused(retryAfter: 6))
        #expect(limiter.check(key, now: start + .seconds(10)) == .allowed, "one token back after 30 s / 3")
        #expect(limiter.take(key, now: start + .seconds(10)) == .allowed)
        #expect(limiter.take(key, now: start + .seconds(10)) == .refused(retryAfter: 10))
        // Another address has its own bucket.
        #expect(limiter.take(.init(rateClass: .standard, scope: .address, value: "192.0.2.2"), now: start) == .allowed)
    }

    @Test func aFloodOfAddressesCostsBoundedMemory() {
        let limiter = RateLimiter(settings: RateLimitSettings(), maximumKeys: 100)
        let start = ContinuousClock.now
        for index in 0..<10_000 {
            _ = limiter.take(.init(rateClass: .credential, scope: .address, value: "198.51.100.\(index)"), now: start + .milliseconds(index))
        }
        #expect(limiter.keyCount <= 100)
    }

    @Test func addressRangesMatchIPv4AndIPv6() throws {
        let private10 = try #require(AddressRange("10.0.0.0/8"))
        #expect(private10.contains("10.200.3.4") && !private10.contains("11.0.0.1") && !private10.contains("fd00::1"))
        #expect(private10.contains("::ffff:10.1.1.1"), "an IPv4-mapped address is its IPv4 address")
        let ula = try #require(AddressRange("fd00::/8"))
        #expect(ula.contains("fd12:3456::1") && !ula.contains("fe80::1"))
        #expect(try #require(AddressRange("127.0.0.1")).contains("127.0.0.1"))
        #expect(!(try #require(AddressRange("127.0.0.1")).contains("127.0.0.2")))
        for bad in ["10.0.0.0/33", "proxy", "", "1.2.3.4/x", "::1/129"] { #expect(AddressRange(bad) == nil, "\(bad)") }
    }

    @Test func forwardedForIsBelievedOnlyFromTrustedProxies() throws {
        let peer = try SocketAddress(ipAddress: "10.0.0.5", port: 4000)
        let headers: HTTPFields = [ClientAddress.forwardedFor: "203.0.113.9, 198.51.100.7, 10.0.0.9"]
        let proxies = [try #require(AddressRange("10.0.0.0/8"))]
        #expect(ClientAddress.of(peer: peer, headers: headers, trustedProxies: []) == "10.0.0.5", "no proxy is trusted")
        #expect(
            ClientAddress.of(peer: peer, headers: headers, trustedProxies: proxies) == "198.51.100.7",
            "the nearest address that is not one of our proxies; what the client wrote before it may be forged")
        let direct = try SocketAddress(ipAddress: "203.0.113.50", port: 4000)
        #expect(ClientAddress.of(peer: direct, headers: headers, trustedProxies: proxies) == "203.0.113.50", "a client cannot claim another address")
        #expect(ClientAddress.of(peer: peer, headers: [ClientAddress.forwardedFor: "not-an-address"], trustedProxies: proxies) == "10.0.0.5")
        #expect(ClientAddress.of(peer: nil, headers: headers, trustedProxies: proxies) == "unknown")
    }
}
