import CustodianLemon
import Foundation
import Testing

/// The vectors of docs/lemon.md, computed independently (Python's hmac for HKDF, `openssl enc -aes-256-cbc`):
/// an app developer checks an implementation against the same numbers.
@Suite struct PayloadVectorTests {
    static let preMasterSecret = Array(UInt8(0x00)...UInt8(0x2f))
    static let clientSeed = Array(UInt8(0x40)...UInt8(0x5f))
    static let serverSeed = Array(UInt8(0x60)...UInt8(0x7f))
    static let iv = Array(UInt8(0x80)...UInt8(0x8f))
    static let plaintext = #"{"pushToken":"example-push-token"}"#
    static let payload =
        "gIGCg4SFhoeIiYqLjI2Oj19lK5sX1tRRVKNeDsZopUGyFtNEdYuRs2eCCd8u9ZAhq5x01iCmGg1kh67/5wUbbuK9+JvXKs/GZ7EV6Q5+qwhwiihKtu1k6TJTTExQcNYH"

    static var keys: SessionKeys {
        SessionKeys.derive(preMasterSecret: preMasterSecret, clientSeed: clientSeed, serverSeed: serverSeed)
    }

    @Test func sessionKeysFollowHKDF() {
        #expect(hex(Self.keys.encryption) == "07bf8a76e76ab952692d0f5296c5413a12cefdd01e6e78396b3254b986c18bfb")
        #expect(hex(Self.keys.authentication) == "8df62fb25b284a68b6480709eebe9d135b9bcc7c68147eb58b8eaa165c8e2483")
    }

    @Test func sealingWithAGivenIVGivesTheVector() {
        let sealed = EncryptedPayload.seal(Data(Self.plaintext.utf8), keys: Self.keys, iv: Self.iv)
        #expect(sealed.base64 == Self.payload)
        #expect(hex(sealed.mac) == "e2bdf89bd72acfc667b115e90e7eab08708a284ab6ed64e932534c4c5070d607")
    }

    @Test func theVectorOpensBareOrAsAJSONString() throws {
        #expect(try EncryptedPayload(body: Array(Self.payload.utf8)).open(keys: Self.keys) == Data(Self.plaintext.utf8))
        #expect(try EncryptedPayload(body: Array("\"\(Self.payload)\"".utf8)).open(keys: Self.keys) == Data(Self.plaintext.utf8))
    }

    @Test func freshIVsDiffer() {
        let first = EncryptedPayload.seal(Data("{}".utf8), keys: Self.keys)
        let second = EncryptedPayload.seal(Data("{}".utf8), keys: Self.keys)
        #expect(first.iv != second.iv)
    }

    @Test func everyAlterationIsRefused() throws {
        var bytes = Array(Data(base64Encoded: Self.payload)!)
        #expect(throws: EncryptedPayloadError.notBase64) { try EncryptedPayload(body: Array("not base64!".utf8)) }
        #expect(throws: EncryptedPayloadError.wrongLength) { try EncryptedPayload(body: Array(Data(bytes.dropLast()).base64EncodedString().utf8)) }
        #expect(throws: EncryptedPayloadError.wrongLength) { try EncryptedPayload(body: Array(Data(bytes.prefix(60)).base64EncodedString().utf8)) }
        for index in [0, 20, bytes.count - 1] {  // IV, ciphertext, MAC
            var tampered = bytes
            tampered[index] ^= 0x01
            let payload = try EncryptedPayload(body: Array(Data(tampered).base64EncodedString().utf8))
            #expect(throws: EncryptedPayloadError.badMAC) { try payload.open(keys: Self.keys) }
        }
        // A MAC that matches over a ciphertext whose padding is wrong: only a holder of the keys makes one.
        let keys = Self.keys
        let unpadded = try EncryptedPayload(body: Array(Data(bytes).base64EncodedString().utf8))
        var lastBlockBroken = unpadded.ciphertext
        lastBlockBroken[lastBlockBroken.count - 1] ^= 0xff
        bytes = unpadded.iv + lastBlockBroken
        bytes += EncryptedPayload.macForTesting(iv: unpadded.iv, ciphertext: lastBlockBroken, keys: keys)
        let badPadding = try EncryptedPayload(body: Array(Data(bytes).base64EncodedString().utf8))
        #expect(throws: EncryptedPayloadError.badPadding) { try badPadding.open(keys: keys) }
    }

    @Test func signedStringsAreTheDocumentedOnes() {
        let registration = HandshakeSignature.registration(
            appId: "app-1234", publicKey: "PK", operatingSystem: "Android", pushToken: nil, language: "en", seed: "S", preMasterSecret: "P")
        #expect(String(decoding: registration, as: UTF8.self) == "LEMON-REGISTER-1\napp-1234\nPK\nAndroid\n\nen\nS\nP")
        let authentication = HandshakeSignature.authentication(appId: "app-1234", language: nil, seed: "S", preMasterSecret: "P")
        #expect(String(decoding: authentication, as: UTF8.self) == "LEMON-AUTHENTICATE-1\napp-1234\n\nS\nP")
        let server = HandshakeSignature.server(accessToken: "T", clientSeed: "C", serverSeed: "S")
        #expect(String(decoding: server, as: UTF8.self) == "LEMON-SERVER-1\nT\nC\nS")
    }

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}
