import CustodianContracts
import CustodianGeotag
import CustodianRPC
import CustodianSecurity
import Foundation
import Logging

/// `routes.consumers.verify`: the gateway's `signature` scheme. Each failure is a 401 with its own reason,
/// checked cheapest first: the timestamp, the key, the HMAC, and last whether the signature was seen before
/// (only signatures that verified are remembered, so nobody can fill the table without a secret).
struct SignatureVerifier: Sendable {
    let consumers: Consumers
    let seen: SeenSignatures
    var now: @Sendable () -> Date = { Date() }

    func verify(_ check: SignatureCheck, context: CallContext) async throws -> Principal {
        let timestamp = try Self.timestamp(check.timestamp, now: Int64(now().timeIntervalSince1970))
        guard check.signature.utf8.count == 64, let signature = Hex.decode(check.signature) else {
            throw Self.refusal("X-API-Sig must be 64 hex digits: the HMAC-SHA256 of the canonical request", reason: "invalid_signature")
        }
        guard check.bodySha256.utf8.count == 64, Hex.decode(check.bodySha256) != nil else {
            throw RPCError.badRequest("bodySha256 must be 64 hex digits")
        }
        guard check.key.utf8.count <= 128, let consumer = try await consumers.find(key: check.key, logger: context.logger) else {
            throw Self.refusal("Unknown API key", reason: "unknown_api_key")
        }
        let canonical = RequestSignature.canonicalString(
            method: check.method, pathWithQuery: check.path, timestamp: check.timestamp, bodySHA256: check.bodySha256)
        guard RequestSignature.isValid(signatureHex: check.signature, secret: consumer.secret, canonicalString: canonical) else {
            throw Self.refusal(
                "The signature does not match the request: X-API-Sig must be the HMAC-SHA256, keyed with the consumer secret, of "
                    + "METHOD\\nPATH_WITH_QUERY\\nTIMESTAMP\\nhex(SHA-256(body)) (docs/geotag.md)",
                reason: "invalid_signature")
        }
        let expiry = Date(timeIntervalSince1970: Double(timestamp + RequestSignature.allowedSkewSeconds))
        guard try await seen.remember(signature, until: expiry, logger: context.logger) else {
            throw Self.refusal("This signature was used before: sign each request anew, with its own timestamp", reason: "replayed_signature")
        }
        return Principal(kind: .consumer, id: String(consumer.id), scopes: ["routes"])
    }

    /// Whole seconds since 1970, within the allowed skew of `now` either way.
    static func timestamp(_ text: String, now: Int64) throws -> Int64 {
        guard !text.isEmpty, text.utf8.count <= 12, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let timestamp = Int64(text)
        else {
            throw refusal("X-API-Timestamp must be the request's Unix time in whole seconds (UTC)", reason: "invalid_timestamp")
        }
        let skew = timestamp - now
        guard abs(skew) <= RequestSignature.allowedSkewSeconds else {
            throw refusal(
                "X-API-Timestamp \(timestamp) is \(abs(skew)) s \(skew < 0 ? "behind" : "ahead of") the server's clock (\(now)); "
                    + "it must be within \(RequestSignature.allowedSkewSeconds) s",
                reason: "timestamp_out_of_window")
        }
        return timestamp
    }

    static func refusal(_ message: String, reason: String) -> RPCError {
        RPCError.unauthenticated(message, reason: reason)
    }
}
