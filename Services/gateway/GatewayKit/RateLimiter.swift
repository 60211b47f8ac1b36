import Crypto
import CustodianProcess
import CustodianSecurity
import Foundation
import Synchronization

/// A token bucket's size and speed: `capacity` requests at once, refilled at `capacity` per `period`.
/// Written `20/1m` (twenty, then one every three seconds) in the `CUSTODIAN_RATE_LIMIT_*` settings.
public struct RateLimit: Sendable, Equatable, CustomStringConvertible {
    public var capacity: Double
    public var period: Duration

    public init(_ capacity: Int, per period: Duration) {
        self.capacity = Double(capacity)
        self.period = period
    }

    var refillPerSecond: Double { capacity / max(period.seconds, 0.001) }

    public init?(parsing text: String) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard parts.count == 2, let count = Int(parts[0].trimmingCharacters(in: .whitespaces)), count > 0, count <= 1_000_000_000,
            let period = Configuration.parseDuration(String(parts[1]).trimmingCharacters(in: .whitespaces)), period > .zero
        else { return nil }
        self.init(count, per: period)
    }

    public var description: String { "\(Int(capacity))/\(period)" }
}

/// Which limits a route's requests count against (DESIGN.md, "Limits at the edge").
public enum RateClass: String, Sendable {
    /// Routes where a request is a guess at a secret or makes a new identity: logins, activations,
    /// registrations, the tracing app's handshake, password changes. Tight, per client address and per account.
    case credential
    /// Everything else the route table serves: uploads, reads, researcher routes. Generous, per client address and
    /// per credential. (Health, readiness and metrics are not routes and are never limited.)
    case standard
}

/// The gateway's rate limits, read from `CUSTODIAN_RATE_LIMIT_*` (docs/operations.md lists them).
public struct RateLimitSettings: Sendable, Equatable {
    public var enabled = true
    /// Credential-class requests per client address.
    public var credentialPerAddress = RateLimit(60, per: .seconds(60))
    /// Credential-class requests per account named in them (the login's e-mail or client id, the app's id).
    public var credentialPerAccount = RateLimit(10, per: .seconds(60))
    /// Standard-class requests per client address.
    public var standardPerAddress = RateLimit(1000, per: .seconds(1))
    /// Standard-class requests per credential (bearer token, API key).
    public var standardPerCredential = RateLimit(100, per: .seconds(1))
    /// Failed authentications (401, and 403 from a credential check) per client address; when they run out, the
    /// address's requests with credentials wait.
    public var authenticationFailuresPerAddress = RateLimit(20, per: .seconds(60))
    /// Peers whose `X-Forwarded-For` names the client (a load balancer, a reverse proxy).
    public var trustedProxies: [AddressRange] = []

    public init() {}

    public init(_ configuration: Configuration) throws {
        func limit(_ key: String, _ defaultValue: RateLimit) throws -> RateLimit {
            guard let text = configuration[key] else { return defaultValue }
            guard let parsed = RateLimit(parsing: text) else {
                throw ConfigurationError(message: "\(key) must be COUNT/DURATION such as 20/1m or 1000/1s, not '\(text)'")
            }
            return parsed
        }
        let switchText = configuration.string("CUSTODIAN_RATE_LIMITS", default: "on").lowercased()
        guard ["on", "off", "true", "false", "1", "0", "yes", "no"].contains(switchText) else {
            throw ConfigurationError(message: "CUSTODIAN_RATE_LIMITS must be on or off, not '\(switchText)'")
        }
        enabled = ["on", "true", "1", "yes"].contains(switchText)
        credentialPerAddress = try limit("CUSTODIAN_RATE_LIMIT_CREDENTIAL", credentialPerAddress)
        credentialPerAccount = try limit("CUSTODIAN_RATE_LIMIT_CREDENTIAL_ACCOUNT", credentialPerAccount)
        standardPerAddress = try limit("CUSTODIAN_RATE_LIMIT_STANDARD", standardPerAddress)
        standardPerCredential = try limit("CUSTODIAN_RATE_LIMIT_STANDARD_CREDENTIAL", standardPerCredential)
        authenticationFailuresPerAddress = try limit("CUSTODIAN_RATE_LIMIT_AUTH_FAILURES", authenticationFailuresPerAddress)
        if let proxies = configuration["CUSTODIAN_TRUSTED_PROXIES"] {
            trustedProxies = try proxies.split(separator: ",").map { item in
                let text = item.trimmingCharacters(in: .whitespaces)
                guard let range = AddressRange(text) else {
                    throw ConfigurationError(message: "CUSTODIAN_TRUSTED_PROXIES holds '\(text)', which is not an address or CIDR range")
                }
                return range
            }
        }
    }
}

/// Token buckets by key, in memory (limits are per gateway replica). Buckets that have refilled are forgotten
/// when the table grows, so that a flood of addresses costs bounded memory.
final class RateLimiter: Sendable {
    enum Scope: String, Sendable {
        case address, account, credential, authenticationFailures = "auth_failures"
    }

    struct Key: Hashable, Sendable {
        var rateClass: RateClass
        var scope: Scope
        var value: String
    }

    enum Decision: Equatable {
        case allowed
        /// Refused; a retry may succeed after this many seconds.
        case refused(retryAfter: Int)
    }

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    let settings: RateLimitSettings
    private let buckets = Mutex<[Key: Bucket]>([:])
    private let maximumKeys: Int

    init(settings: RateLimitSettings, maximumKeys: Int = 200_000) {
        self.settings = settings
        self.maximumKeys = maximumKeys
    }

    func limit(for key: Key) -> RateLimit {
        switch (key.rateClass, key.scope) {
        case (_, .authenticationFailures): settings.authenticationFailuresPerAddress
        case (.credential, .address): settings.credentialPerAddress
        case (.credential, _): settings.credentialPerAccount
        case (.standard, .address): settings.standardPerAddress
        case (.standard, _): settings.standardPerCredential
        }
    }

    /// Takes one token from the key's bucket, if it has one.
    func take(_ key: Key, now: ContinuousClock.Instant = .now) -> Decision {
        let limit = limit(for: key)
        return buckets.withLock { buckets in
            var bucket = Self.refilled(buckets[key], limit: limit, now: now)
            let decision: Decision
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                decision = .allowed
            } else {
                decision = .refused(retryAfter: Self.secondsUntilOneToken(bucket, limit: limit))
            }
            if buckets[key] == nil, buckets.count >= maximumKeys { forgetRefilled(&buckets, now: now) }
            buckets[key] = bucket
            return decision
        }
    }

    /// Whether the key's bucket has a token, without taking it.
    func check(_ key: Key, now: ContinuousClock.Instant = .now) -> Decision {
        let limit = limit(for: key)
        return buckets.withLock { buckets in
            guard let stored = buckets[key] else { return .allowed }
            let bucket = Self.refilled(stored, limit: limit, now: now)
            return bucket.tokens >= 1 ? .allowed : .refused(retryAfter: Self.secondsUntilOneToken(bucket, limit: limit))
        }
    }

    var keyCount: Int { buckets.withLock { $0.count } }

    private static func refilled(_ bucket: Bucket?, limit: RateLimit, now: ContinuousClock.Instant) -> Bucket {
        guard var bucket else { return Bucket(tokens: limit.capacity, updated: now) }
        let elapsed = max(0, (now - bucket.updated).seconds)
        bucket.tokens = min(limit.capacity, bucket.tokens + elapsed * limit.refillPerSecond)
        bucket.updated = now
        return bucket
    }

    private static func secondsUntilOneToken(_ bucket: Bucket, limit: RateLimit) -> Int {
        max(1, Int(((1 - bucket.tokens) / limit.refillPerSecond).rounded(.up)))
    }

    /// Drops the buckets that would be full by now: they hold nothing a fresh bucket would not. If most are still
    /// draining (a flood from very many addresses), only the most recently used half stays.
    private func forgetRefilled(_ buckets: inout [Key: Bucket], now: ContinuousClock.Instant) {
        buckets = buckets.filter { key, bucket in
            let limit = limit(for: key)
            return bucket.tokens + max(0, (now - bucket.updated).seconds) * limit.refillPerSecond < limit.capacity
        }
        if buckets.count >= maximumKeys * 3 / 4 {
            let recent = buckets.sorted { $0.value.updated > $1.value.updated }.prefix(maximumKeys / 2)
            buckets = Dictionary(uniqueKeysWithValues: recent.map { ($0.key, $0.value) })
        }
    }

    /// A credential as a bucket key: its digest, so that the table holds no usable secret.
    static func credentialKey(_ secret: String) -> String {
        Hex.encode(SHA256.hash(data: Data(secret.utf8)).prefix(16))
    }
}
