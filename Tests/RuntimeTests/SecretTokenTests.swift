import Foundation
import Testing
@testable import CustodianSecurity

@Suite("Secret tokens")
struct SecretTokenTests {
    @Test func tokensAre256RandomBitsInURLSafeBase64() {
        let tokens = (0..<200).map { _ in SecretToken.generate() }
        #expect(Set(tokens).count == tokens.count)
        for token in tokens {
            #expect(token.count == 43)
            #expect(token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        }
    }

    @Test func theStoredHashIsSHA256() {
        // SHA-256("abc"), FIPS 180-2 appendix B.1.
        #expect(SecretToken.hashHex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func hashesCompareByValue() {
        #expect(SecretToken.constantTimeEquals(SecretToken.hash("a"), SecretToken.hash("a")))
        #expect(!SecretToken.constantTimeEquals(SecretToken.hash("a"), SecretToken.hash("b")))
        #expect(!SecretToken.constantTimeEquals(Data([1, 2]), Data([1, 2, 3])))
    }
}

@Suite("Hex")
struct HexTests {
    @Test func everyByteIsTwoLowercaseDigitsAndReadsBack() {
        let bytes = (0...255).map(UInt8.init)
        let text = Hex.encode(bytes)
        #expect(text == bytes.map { String(format: "%02x", $0) }.joined())
        #expect(Hex.decode(text).map(Array.init) == bytes)
        #expect(Hex.decode(text.uppercased()).map(Array.init) == bytes)
        #expect(Hex.decode("abc") == nil && Hex.decode("zz") == nil)
    }
}
