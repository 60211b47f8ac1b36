@testable import CustodianContracts
import CustodianSodium
import CustodianVault
import Testing
@testable import VaultService

@Suite("OwnYourData record encryption (docs/vault.md, Record format)")
struct OYDRecordTests {
    /// The document's public key, nonce and message.
    static let publicKey = "3c140482018abdc7e2a8d70f1f797e83b46c77218a9bc56ce1ae35acd2b53920"
    static let nonce = "59b142f13c9520cd203effa2a96dbe589defb3c1e021876e"
    static let message = #"{"latitude":40.75846,"longitude":73.92248,"elevation":160.34,"timestamp":"2017-12-28T16:49:22Z","datum":"EPSG:4326"}"#
    static let value =
        "2322818113e73144fab77ce62916ec8860568ea5e9fbe3867c862056bd4c1d8e10349cbb82c52e82e0b55764805a3e923bd784820c5922ba0f079f10eeae4ef0b5155561d57986185708919d5318257d811beb9510697e307bd5d9fe27326f4e82af87f860eaa77a7eaf12079048735afad76e1396101a4576c9aa8d2778f5a8b842117d"

    @Test func theDocumentsRecordIsReproducedExactly() throws {
        let record = try OYDRecord.seal(Self.message, publicKeyHex: Self.publicKey, nonce: [UInt8](hex: Self.nonce)!)
        #expect(record == OYDRecord(value: Self.value, nonce: Self.nonce, version: "0.4"))
    }

    @Test func aRepoKeyPairRoundTripsAndOnlyItsKeyOpens() throws {
        let repo = try Sodium.boxKeyPair()
        let record = try OYDRecord.seal(Self.message, publicKeyHex: repo.publicKey.hex)
        #expect(record.nonce.count == 48)
        #expect(try record.open(secretKey: repo.secretKey) == Self.message)
        #expect(throws: (any Error).self) { try record.open(secretKey: try Sodium.boxKeyPair().secretKey) }
        var tampered = record
        tampered.value = String(record.value.dropLast(2)) + (record.value.hasSuffix("00") ? "01" : "00")
        #expect(throws: (any Error).self) { try tampered.open(secretKey: repo.secretKey) }
    }

    @Test func badKeysAndNoncesAreRefused() {
        #expect(throws: (any Error).self) { try OYDRecord.seal("{}", publicKeyHex: "abcd") }
        #expect(throws: (any Error).self) { try OYDRecord.seal("{}", publicKeyHex: Self.publicKey, nonce: [1, 2, 3]) }
    }

    @Test func passwordsHashWithArgon2idAndVerify() throws {
        let hash = try Sodium.passwordHash("user_a")
        #expect(hash.hasPrefix("$argon2id$"))
        #expect(Sodium.verifyPassword("user_a", hash: hash))
        #expect(!Sodium.verifyPassword("user_b", hash: hash))
    }
}

@Suite("Encrypted record checks")
struct RecordCheckTests {
    @Test func hexadecimalTextIsEvenLengthDigitsOnly() {
        #expect(VaultRecord.isHex(OYDRecordTests.value))
        #expect(VaultRecord.isHex("0123456789abcdefABCDEF"))
        #expect(VaultRecord.isHex(""))
        for text in ["abc", "0g", "zz", "12 4", "ab\u{0}c", "é0", "0x12", "12\n4", String(repeating: "a", count: 999) + "G"] {
            #expect(!VaultRecord.isHex(text), "\(text)")
        }
        // Every byte that is not a digit, in the middle of a long value.
        for byte in UInt8(0)...UInt8(127) where !"0123456789abcdefABCDEF".utf8.contains(byte) {
            let text = String(repeating: "ab", count: 100) + String(UnicodeScalar(byte)) + "c" + String(repeating: "cd", count: 100)
            #expect(!VaultRecord.isHex(text), "byte \(byte)")
        }
    }
}
