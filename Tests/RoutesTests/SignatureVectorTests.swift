import CustodianGeotag
import Foundation
import Testing

/// The vectors of docs/geotag.md, "Signed requests", computed with Python's hmac and hashlib.
@Suite("Request signature vectors")
struct SignatureVectorTests {
    static let secret = "mF1c4Qx8WbJrN2vTz7kLpA9sYdE0uH3gKqR5tVwXyZo"

    @Test func aPostWithABodyAndAQuery() {
        let digest = RequestSignature.bodyDigest(Data("AQIDBAU=".utf8))
        #expect(digest == "489f34080c63cb0ba15a0f2745288642fae72de135e832bcb0eb30fa462ddf5a")
        let canonical = RequestSignature.canonicalString(
            method: "POST", pathWithQuery: "/route?lookup_id=0f9e", timestamp: "1764000000", bodySHA256: digest)
        #expect(canonical == "POST\n/route?lookup_id=0f9e\n1764000000\n489f34080c63cb0ba15a0f2745288642fae72de135e832bcb0eb30fa462ddf5a")
        #expect(
            RequestSignature.signature(secret: Self.secret, canonicalString: canonical)
                == "0155f66132383ea94d0c7198883106953b2e5459f08b40b94881176fee3d91e9")
    }

    @Test func aGetWithoutABodySignsTheDigestOfNothing() {
        let headers = RequestSignature.headers(
            key: "the-key", secret: Self.secret, method: "GET", pathWithQuery: "/route/q7Vt0bC2kR9xYw1ZpLmN3A", body: Data(), timestamp: 1_764_000_042
        )
        #expect(headers.map(\.0) == ["X-API-Key", "X-API-Timestamp", "X-API-Sig"])
        #expect(headers.map(\.1) == ["the-key", "1764000042", "540ebaf2a5fe78424a40f0355a3cceb54c7d99c76c2b057e8e21b73ae5a84f8c"])
    }

    @Test func verificationIsExactButTakesEitherCaseOfHex() {
        let canonical = "GET\n/route/q7Vt0bC2kR9xYw1ZpLmN3A\n1764000042\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        let good = "540ebaf2a5fe78424a40f0355a3cceb54c7d99c76c2b057e8e21b73ae5a84f8c"
        #expect(RequestSignature.isValid(signatureHex: good, secret: Self.secret, canonicalString: canonical))
        #expect(RequestSignature.isValid(signatureHex: good.uppercased(), secret: Self.secret, canonicalString: canonical))
        #expect(!RequestSignature.isValid(signatureHex: good, secret: Self.secret + "x", canonicalString: canonical))
        #expect(
            !RequestSignature.isValid(
                signatureHex: good, secret: Self.secret, canonicalString: canonical.replacingOccurrences(of: "GET", with: "DELETE")))
        #expect(!RequestSignature.isValid(signatureHex: String(good.dropLast()), secret: Self.secret, canonicalString: canonical))
        #expect(!RequestSignature.isValid(signatureHex: String(good.dropLast()) + "g", secret: Self.secret, canonicalString: canonical))
    }

    @Test func theMethodIsUpperCasedAndTheDigestLowerCased() {
        #expect(
            RequestSignature.canonicalString(method: "post", pathWithQuery: "/route", timestamp: "1", bodySHA256: "ABCD") == "POST\n/route\n1\nabcd")
    }
}
