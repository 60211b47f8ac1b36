import CustodianContracts
import CustodianJWT
import CustodianRPC
import Foundation
import JWTKit

/// Checks access tokens locally against the key set `auth` publishes. The key set is fetched when first needed and
/// again once the copy is older than the max age `auth` publishes with it (a minute by default), so that a key `auth`
/// publishes is accepted here within that time, before `auth` signs with it, and a retired one is refused within it
/// (docs/jwt.md, "Rotating the signing key"). A token naming a key id this copy does not know has it fetched again too,
/// at most every few seconds. Requests that find the copy stale together wait for one fetch.
actor AccessTokenVerifier {
    private let rpc: RPCClient
    private let issuer: String
    private let audience: String
    private var keys = JWTKeyCollection()
    private var knownKeyIDs: Set<String> = []
    private var fetchedAt: ContinuousClock.Instant?
    private var maxAge = AccessTokenVerifier.defaultMaxAge
    private var inFlight: Task<Void, any Error>?

    /// For a key set that says no max age (an `auth` of before key rotation).
    static let defaultMaxAge: Duration = .seconds(60)
    /// What a published max age is held to, whatever it says.
    static let maxAgeRange = 1...3600
    private static let unknownKeyRefetchInterval: Duration = .seconds(5)

    init(rpc: RPCClient, issuer: String, audience: String) {
        self.rpc = rpc
        self.issuer = issuer
        self.audience = audience
    }

    enum Failure: Error {
        case malformed, wrongAlgorithm, unknownKey, invalid, wrongIssuer, wrongAudience
    }

    /// Checks `token`; a key-set fetch it needs runs within the request's own deadline.
    func verify(_ token: String, context: CallContext) async throws -> AccessClaims {
        let header = try Self.header(of: token)
        guard header.alg == AccessTokenAlgorithm.name else { throw Failure.wrongAlgorithm }
        guard let kid = header.kid else { throw Failure.unknownKey }
        try await ensureKey(kid, context: context)
        let claims: AccessClaims
        do {
            claims = try await keys.verify(token, as: AccessClaims.self)
        } catch {
            throw Failure.invalid
        }
        guard claims.iss.value == issuer else { throw Failure.wrongIssuer }
        guard claims.aud.value.contains(audience) else { throw Failure.wrongAudience }
        return claims
    }

    private func ensureKey(_ kid: String, context: CallContext) async throws {
        let now = ContinuousClock.now
        let stale = fetchedAt.map { now - $0 >= maxAge } ?? true
        let mayRefetch = fetchedAt.map { now - $0 > Self.unknownKeyRefetchInterval } ?? true
        if stale || (!knownKeyIDs.contains(kid) && mayRefetch) {
            try await refresh(context: context)
        }
        guard knownKeyIDs.contains(kid) else { throw Failure.unknownKey }
    }

    /// One fetch at a time: a request that needs one while another is under way waits for that one.
    private func refresh(context: CallContext) async throws {
        if let inFlight { return try await inFlight.value }
        let fetch = Task { try await self.fetch(context: context) }
        inFlight = fetch
        defer { inFlight = nil }
        try await fetch.value
    }

    private func fetch(context: CallContext) async throws {
        let set = try await rpc.call(AuthMethods.keysList, context: context)
        let collection = JWTKeyCollection()
        // Only ES256 keys enter the collection: the algorithm is pinned, whatever a token's header claims.
        let pinned = set.keys.filter { $0.alg == AccessTokenAlgorithm.name && $0.kty == "EC" && $0.crv == "P-256" }
        let json = try String(decoding: JSONEncoder().encode(PublicKeySet(keys: pinned)), as: UTF8.self)
        try await collection.add(jwksJSON: json)
        keys = collection
        knownKeyIDs = Set(pinned.map(\.kid))
        maxAge = set.maxAgeSeconds.map { .seconds(min(max($0, Self.maxAgeRange.lowerBound), Self.maxAgeRange.upperBound)) } ?? Self.defaultMaxAge
        fetchedAt = ContinuousClock.now
    }

    private struct Header: Decodable {
        var alg: String
        var kid: String?
    }

    private static func header(of token: String) throws -> Header {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = base64URLDecode(String(parts[0])),
            let header = try? JSONDecoder().decode(Header.self, from: data)
        else { throw Failure.malformed }
        return header
    }

    private static func base64URLDecode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
