import CustodianGeotag
import GeotagClient
import Foundation
import Testing

/// The route format of docs/geotag.md, "Route format": nonce, QR text, lookup id and the sealing vector
/// (computed with libsodium through Python's ctypes).
@Suite("Route format")
struct RouteFormatTests {
    static let nonce = try! RouteNonce(text: "000102030405060708090A0B0C0D0E0F")
    static let passphrase = "correct horse battery staple"
    static let plaintext = "[[[52.0907,5.1214,4.5,8,1764000000],[52.0911,5.1222,4.9,6,1764000005]]]"
    /// Derived once: Argon2id costs 64 MiB each time, and the other tests run beside these.
    static let key = try! RouteKey(passphrase: passphrase, nonce: nonce)
    static let blobBase64 =
        "ARAREhMUFRYXGBkaGxwdHh8gISIjJCUmJzwX29gEOYOuXkqRHRg4xYjfSrGmyE6Q5QLbxUEf9cDGM2EJMM2W6N9ewkcRYlMLpsPgbQFdgzm4rBnvwoqv8vvAwET1wgdAyzGL1nQo3zv8QazGTtz5uw=="

    @Test func theNonceIsSixteenBytesInUpperCaseHex() throws {
        #expect(Self.nonce.bytes == Data(0..<16))
        #expect(Self.nonce.text == "000102030405060708090A0B0C0D0E0F")
        #expect(try RouteNonce(text: "000102030405060708090a0b0c0d0e0f") == Self.nonce)
        #expect(throws: RouteFormatError.invalidNonce) { try RouteNonce(text: "2OAnezk") }
        #expect(throws: RouteFormatError.invalidNonce) { try RouteNonce(text: "000102030405060708090A0B0C0D0E") }
        let random = RouteNonce.random()
        #expect(random.text.count == 32)
        #expect(random.text.allSatisfy { "0123456789ABCDEF".contains($0) }, "QR alphanumeric mode holds digits and upper-case letters")
        #expect(random != RouteNonce.random())
    }

    @Test func theLookupIDVector() {
        #expect(Self.nonce.lookupID == "a43eb60ff41ab5ffede54fb9a654c4407adcb98b027e3425d1ad465d6a5f04c6")
    }

    @Test func qrTexts() throws {
        let qr = try RouteQRText(parsing: "1764000000-000102030405060708090A0B0C0D0E0F\n")
        #expect(qr.time == 1_764_000_000)
        #expect(qr.nonce == Self.nonce)
        #expect(qr.text == "1764000000-000102030405060708090A0B0C0D0E0F")
        for bad in [
            "1564650590-2OAnezk", "1764000000", "-000102030405060708090A0B0C0D0E0F", "x-000102030405060708090A0B0C0D0E0F",
            "1-2-000102030405060708090A0B0C0D0E0F",
        ] {
            #expect(throws: (any Error).self, "\(bad)") { try RouteQRText(parsing: bad) }
        }
    }

    @Test func theSealingVector() throws {
        let aeadNonce = Data(0x10..<0x28)
        #expect(Self.key.hex == "c05ce4c4dd7e0e45ee6011cc59d068ade47df1b01fc0cf9cd4678bdf68a5b7b0")
        let blob = try RouteSealer.seal(plaintext: Data(Self.plaintext.utf8), key: Self.key, aeadNonce: aeadNonce)
        #expect(blob.base64EncodedString() == Self.blobBase64)
        #expect(blob.count == 1 + 24 + Self.plaintext.utf8.count + 16)
    }

    @Test func theVectorOpensToItsTracks() throws {
        let blob = try #require(Data(base64Encoded: Self.blobBase64))
        let tracks = try RouteSealer.open(blob, key: Self.key)
        #expect(
            tracks
                == Tracks([
                    [
                        Fix(latitude: 52.0907, longitude: 5.1214, altitude: 4.5, accuracy: 8, time: 1_764_000_000),
                        Fix(latitude: 52.0911, longitude: 5.1222, altitude: 4.9, accuracy: 6, time: 1_764_000_005),
                    ]
                ]))
        #expect(String(decoding: try tracks.json(), as: UTF8.self) == Self.plaintext)
        // Leading and trailing white space is not part of the passphrase (docs/geotag.md, "Route format").
        #expect(try RouteSealer.open(blob, passphrase: "  \(Self.passphrase)\n", nonce: Self.nonce) == tracks)
    }

    @Test func aWrongPassphraseNonceOrByteDoesNotOpen() throws {
        let blob = try #require(Data(base64Encoded: Self.blobBase64))
        #expect(throws: RouteFormatError.cannotOpen) { try RouteSealer.open(blob, passphrase: "wrong horse", nonce: Self.nonce) }
        #expect(throws: RouteFormatError.cannotOpen) { try RouteSealer.open(blob, passphrase: Self.passphrase, nonce: RouteNonce.random()) }
        var damaged = blob
        damaged[40] ^= 1
        #expect(throws: RouteFormatError.cannotOpen) { try RouteSealer.open(damaged, key: Self.key) }
        var otherVersion = blob
        otherVersion[0] = 2
        #expect(throws: RouteFormatError.unsupportedBlob) { try RouteSealer.open(otherVersion, key: Self.key) }
        #expect(throws: RouteFormatError.unsupportedBlob) { try RouteSealer.open(blob.prefix(40), key: Self.key) }
        #expect(throws: RouteFormatError.emptyPassphrase) { try RouteSealer.open(blob, passphrase: " \t", nonce: Self.nonce) }
    }

    @Test func sealingTwiceGivesDifferentBlobsThatBothOpen() throws {
        let tracks = Tracks([[Fix(latitude: -33.8568, longitude: 151.2153, altitude: nil, accuracy: 12.5, time: 1_700_000_000.25)]])
        let first = try RouteSealer.seal(plaintext: tracks.json(), key: Self.key)
        let second = try RouteSealer.seal(plaintext: tracks.json(), key: Self.key)
        #expect(first != second, "a fresh XChaCha20 nonce each time")
        #expect(try RouteSealer.open(first, key: Self.key) == tracks)
        #expect(try RouteSealer.open(second, key: Self.key) == tracks)
    }

    @Test func tracksJSONIsChecked() throws {
        #expect(throws: (any Error).self) { try Tracks(json: Data("{}".utf8)) }
        #expect(throws: (any Error).self) { try Tracks(json: Data("[[[1,2,3,4]]]".utf8)) }
        #expect(throws: (any Error).self) { try Tracks(json: Data("[[[1,null,3,4,5]]]".utf8)) }
        #expect(try Tracks(json: Data("[[[1,2,null,4,5]]]".utf8)).tracks[0][0].altitude == nil)
    }
}
