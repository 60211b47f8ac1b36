import Crypto
import CustodianSecurity
import Foundation
import Testing

@Suite("Sealed secrets and sealing key versions")
struct SealerTests {
    static let plaintext = "G@Qf2a9F4EcFV1V%Gvs72Mw65nQG2WL05pJFJUQ4"
    static let context = "opensense-key:device-1"
    /// The vectors of docs/operations.md, "Sealed values": keys 00…1f (version 1) and 20…3f (version 2), nonce 40…4b,
    /// worked out with another implementation of ChaCha20-Poly1305 (Python's `cryptography`).
    static let key1 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
    static let key2 = "ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8="
    static let nonce = try! ChaChaPoly.Nonce(data: Data((64..<76).map(UInt8.init)))
    static let vector1 =
        "404142434445464748494a4bbf142de7402bd7476c8a9546edde3be8f3ba102f76b13659cb62831cd870765ac5c3d3366c1e33c20199bc6d1baf8714569f845462bb821a"
    static let vector2 =
        "43534b0100000002404142434445464748494a4bd775c6b375b0489ca9b37912a69c0561da43e309d9bc82149e6ea5519314d83c4881ffc2d6a2b9116c0f5e1f141d046f4de5b001bd81e4fe"

    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }
    static func bytes(_ hex: String) -> Data {
        Data(stride(from: 0, to: hex.count, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16)! })
    }

    @Test func aSealedValueOpensOnlyWithItsKeyAndContext() throws {
        let sealer = try Sealer(keyringText: SealingKeyring.generateText())
        let sealed = try sealer.seal(Self.plaintext, context: "opensense:device-1")
        #expect(try sealer.open(sealed, context: "opensense:device-1") == Self.plaintext)
        #expect(throws: SealerError.cannotOpen) { try sealer.open(sealed, context: "opensense:device-2") }
        #expect(throws: SealerError.cannotOpen) {
            try Sealer(keyringText: SealingKeyring.generateText()).open(sealed, context: "opensense:device-1")
        }
    }

    @Test func theVectorsOfTheDocs() throws {
        let old = try Sealer(keyringText: Self.key1)
        #expect(Self.hex(try old.seal(Self.plaintext, context: Self.context, nonce: Self.nonce)) == Self.vector1)
        let rotated = try Sealer(keyringText: "1:\(Self.key1)\n2:\(Self.key2)\n")
        #expect(Self.hex(try rotated.seal(Self.plaintext, context: Self.context, nonce: Self.nonce)) == Self.vector2)
        #expect(try rotated.open(Self.bytes(Self.vector1), context: Self.context) == Self.plaintext)
        #expect(try rotated.open(Self.bytes(Self.vector2), context: Self.context) == Self.plaintext)
        #expect(SealedValueFormat.version(of: Self.bytes(Self.vector1)) == 1)
        #expect(SealedValueFormat.version(of: Self.bytes(Self.vector2)) == 2)
    }

    /// A key file from before versions holds one bare key: it is version 1, and what it sealed opens after a rotation.
    @Test func oldValuesOpenAndNewOnesCarryTheNewestVersion() throws {
        let before = try Sealer(keyringText: Self.key1 + "\n")
        #expect(before.keyring.versions == [1] && before.keyring.newest == 1)
        let old = try before.seal(Self.plaintext, context: Self.context)
        // Under version 1 a value keeps the form releases before key versions open.
        #expect(old.count == 12 + Self.plaintext.utf8.count + 16)

        let rotated = Sealer(keyring: try SealingKeyring(text: Self.key1).adding())
        #expect(rotated.keyring.versions == [1, 2] && rotated.keyring.newest == 2)
        #expect(try rotated.open(old, context: Self.context) == Self.plaintext)
        let new = try rotated.seal(Self.plaintext, context: Self.context)
        #expect(SealedValueFormat.version(of: new) == 2)
        #expect(Array(new.prefix(8)) == [0x43, 0x53, 0x4B, 0x01, 0, 0, 0, 2])
        #expect(try rotated.open(new, context: Self.context) == Self.plaintext)
        // The old key alone does not open the new value, and says why.
        #expect(throws: SealerError.unknownVersion(2)) { try before.open(new, context: Self.context) }

        // Retired: version 2 alone opens the new value and refuses the old one cleanly.
        let retired = Sealer(keyring: try rotated.keyring.retiring(1))
        #expect(try retired.open(new, context: Self.context) == Self.plaintext)
        #expect(throws: SealerError.unknownVersion(1)) { try retired.open(old, context: Self.context) }
        // Its file names the version, and reads back the same.
        let reread = try SealingKeyring(text: retired.keyring.text)
        #expect(reread.versions == [2] && retired.keyring.text.hasPrefix("2:"))
        #expect(try Sealer(keyring: reread).open(new, context: Self.context) == Self.plaintext)
    }

    @Test func aValueNamingAVersionNotHeldOrDamagedFailsCleanly() throws {
        let sealer = try Sealer(keyringText: "1:\(Self.key1) 2:\(Self.key2)")
        var unknown = Self.bytes(Self.vector2)
        unknown[7] = 9
        #expect(throws: SealerError.unknownVersion(9)) { try sealer.open(unknown, context: Self.context) }
        var tampered = Self.bytes(Self.vector2)
        tampered[tampered.count - 1] ^= 1
        #expect(throws: SealerError.cannotOpen) { try sealer.open(tampered, context: Self.context) }
        // Version 1's key does not open what names version 2, and the reverse.
        var renamed = Self.bytes(Self.vector2)
        renamed.replaceSubrange(4..<8, with: [0, 0, 0, 1] as [UInt8])
        #expect(throws: SealerError.cannotOpen) { try sealer.open(renamed, context: Self.context) }
        for short in [Data(), Data([0x43, 0x53, 0x4B, 0x01]), Self.bytes(Self.vector2).prefix(30)] {
            #expect(throws: SealerError.self) { try sealer.open(short, context: Self.context) }
        }
    }

    /// A value sealed before versions whose random nonce began like a header still opens: the header's reading
    /// fails, and the plain one is tried with version 1.
    @Test func anOldValueWhoseNonceLooksLikeAHeaderStillOpens() throws {
        let sealer = try Sealer(keyringText: Self.key1)
        let nonce = try ChaChaPoly.Nonce(data: Data([0x43, 0x53, 0x4B, 0x01, 0, 0, 0, 2, 9, 9, 9, 9]))
        let old = try sealer.seal(Self.plaintext, context: Self.context, nonce: nonce)
        #expect(SealedValueFormat.headerVersion(old) == 2)
        let rotated = try Sealer(keyringText: "1:\(Self.key1) 2:\(Self.key2)")
        #expect(try rotated.open(old, context: Self.context) == Self.plaintext)
        #expect(try sealer.open(old, context: Self.context) == Self.plaintext)
    }

    @Test func aDamagedKeyFileIsRefusedWithTheEntryNamedAndNoKeyShown() {
        let cases: [(String, SealingKeyringError)] = [
            ("", .empty), ("  \n", .empty),
            ("c2hvcnQ=", .badKey(entry: 1, version: 1)),
            ("1:\(Self.key1)\n2:\(Self.key2.dropLast(4))", .badKey(entry: 2, version: 2)),
            ("0:\(Self.key1)", .badVersion(entry: 1)), ("x:\(Self.key1)", .badVersion(entry: 1)), ("-1:\(Self.key1)", .badVersion(entry: 1)),
            ("1:\(Self.key1) 4294967296:\(Self.key2)", .badVersion(entry: 2)),
            ("\(Self.key1)\n1:\(Self.key2)", .duplicateVersion(1)),
            ("# my keys\n1:\(Self.key1)", .badKey(entry: 1, version: 1)),
        ]
        for (text, expected) in cases {
            #expect(throws: expected, "\(text)") { try SealingKeyring(text: text) }
            do {
                _ = try SealingKeyring(text: text)
            } catch {
                #expect(!"\(error)".contains(Self.key1.prefix(12)) && !"\(error)".contains(Self.key2.prefix(12)))
            }
        }
        #expect(throws: Never.self) { try SealingKeyring(text: "  3:\(Self.key2)\t1:\(Self.key1)\n\n") }
    }

    @Test func retiringRefusesAnUnknownVersionAndTheNewest() throws {
        let keyring = try SealingKeyring(text: "1:\(Self.key1)\n2:\(Self.key2)")
        #expect(throws: SealingKeyringError.unknownVersion(3, held: [1, 2])) { try keyring.retiring(3) }
        #expect(throws: SealingKeyringError.retiringNewest(2)) { try keyring.retiring(2) }
        #expect("\(SealingKeyringError.unknownVersion(3, held: [1, 2]))" == "there is no key version 3 (the keys held are version 1, 2)")
        #expect(try keyring.retiring(1).versions == [2])
        // A key added after a retirement takes the next version, never a retired one's.
        #expect(try keyring.retiring(1).adding().versions == [2, 3])
    }

    /// The login-failure digests follow the newest key: a rotation starts the counts afresh (docs/operations.md).
    @Test func digestsUseTheNewestKey() throws {
        let before = try Sealer(keyringText: Self.key1)
        let after = try Sealer(keyringText: "1:\(Self.key1) 2:\(Self.key2)")
        #expect(before.digest("a@example.org", context: "c") == (try Sealer(keyringText: "1:\(Self.key1)")).digest("a@example.org", context: "c"))
        #expect(before.digest("a@example.org", context: "c") != after.digest("a@example.org", context: "c"))
        #expect(after.digest("a@example.org", context: "c") == (try Sealer(keyringText: "2:\(Self.key2)")).digest("a@example.org", context: "c"))
    }
}
