import Crypto
import CustodianLemon
import Foundation
import LemonClient
import Testing

@Suite struct ServerKeyTests {
    /// One key file generated for the suite: RSA-3072 generation takes a moment.
    static let file = try! ServerKeyFile.generate(id: "k1")

    @Test func preMasterSecretsOpenWithTheKeyTheyWereSealedTo() throws {
        let key = try Self.file.serverKeys()[0]
        let secret = (0..<48).map { UInt8($0) }
        let sealed = try key.publicKey.encryptPreMasterSecret(secret)
        #expect(key.decryptPreMasterSecret(sealed) == secret)
        var tampered = Array(sealed)
        tampered[10] ^= 1
        #expect(key.decryptPreMasterSecret(Data(tampered)) == nil)
        // 47 bytes is not a pre-master secret, however well it decrypts.
        #expect(key.decryptPreMasterSecret(try key.publicKey.encryptPreMasterSecret(Array(secret.dropLast()))) == nil)
    }

    @Test func rotationKeepsOldKeysAndSignsWithTheNewOne() throws {
        var file = Self.file
        try file.rotate(newID: "k2")
        let reread = try ServerKeyFile(json: try file.json())
        let keys = try reread.serverKeys()
        #expect(keys.map(\.id) == ["k2", "k1"])
        #expect(throws: ServerKeyFileError.self) { try file.rotate(newID: "k1") }
        let signature = try keys[0].sign(Array("hello".utf8))
        #expect(keys[0].publicKey.verify(signature: signature, of: Array("hello".utf8)))
        #expect(!keys[1].publicKey.verify(signature: signature, of: Array("hello".utf8)))
    }

    @Test func clientAndServerDeriveTheSameSession() throws {
        let key = try Self.file.serverKeys()[0]
        let app = LemonApp.generate()
        let builder = try HandshakeBuilder(serverKey: key.publicKey)
        let body = try builder.registration(app: app, operatingSystem: "IOS", language: "de", pushToken: "push-token-1")
        // What the server does with the body:
        let secret = try #require(key.decryptPreMasterSecret(Data(base64Encoded: body["PreMasterSecret"]!)!))
        let signed = HandshakeSignature.registration(
            appId: body["AppId"]!, publicKey: body["PublicKey"]!, operatingSystem: "IOS", pushToken: "push-token-1", language: "de",
            seed: body["Seed"]!, preMasterSecret: body["PreMasterSecret"]!)
        let clientKey = try #require(HandshakeSignature.publicKey(body["PublicKey"]!))
        #expect(clientKey.isValidSignature(try #require(HandshakeSignature.parse(body["Signature"]!)), for: signed))
        let serverSeed = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let token = "header.payload.signature"
        let answer = [
            "AccessToken": token, "AccessTokenExpiry": "2026-11-22T12:00:00Z", "Seed": serverSeed,
            "Signature": try key.sign(HandshakeSignature.server(accessToken: token, clientSeed: body["Seed"]!, serverSeed: serverSeed)),
        ]
        let session = try builder.session(from: answer)
        let serverKeys = SessionKeys.derive(
            preMasterSecret: secret, clientSeed: Array(Data(base64Encoded: body["Seed"]!)!), serverSeed: Array(Data(base64Encoded: serverSeed)!))
        #expect(session.keys == serverKeys)
        // An answer signed by anyone else is refused.
        var forged = answer
        forged["Signature"] = try P256.Signing.PrivateKey().signature(for: Array("x".utf8)).derRepresentation.base64EncodedString()
        #expect(throws: LemonClientError.serverSignature) { try builder.session(from: forged) }
    }

    @Test func signaturesAreReadAsDEROrRaw() throws {
        let key = P256.Signing.PrivateKey()
        let signature = try key.signature(for: Array("m".utf8))
        let der = try #require(HandshakeSignature.parse(signature.derRepresentation.base64EncodedString()))
        let raw = try #require(HandshakeSignature.parse(signature.rawRepresentation.base64EncodedString()))
        #expect(key.publicKey.isValidSignature(der, for: Array("m".utf8)))
        #expect(key.publicKey.isValidSignature(raw, for: Array("m".utf8)))
        #expect(HandshakeSignature.parse("bm90IGEgc2lnbmF0dXJl") == nil)
    }
}
