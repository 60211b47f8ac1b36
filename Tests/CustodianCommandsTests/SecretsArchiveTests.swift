import CustodianSecurity
import CustodianSodium
import Foundation
import Testing

@testable import CustodianCommands

/// The secrets archive of a backup (docs/backup.md, "Secrets archive"): it opens only with its passphrase, whole and
/// unaltered, and a damaged or crafted file is refused with a message, never a crash or an open.
@Suite("backup: the secrets archive")
struct SecretsArchiveTests {
    static let contents = SecretsArchive.Contents(
        createdAt: "2026-11-27T13:30:06Z", root: .dataDirectory, databaseDumpSHA256: String(repeating: "ab", count: 32),
        files: ["secrets/sealing-key": Data("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n".utf8).base64EncodedString()])
    static let salt = Array(0..<16).map(UInt8.init)
    static let nonce = Array(16..<40).map(UInt8.init)

    /// The vector of docs/backup.md: interactive limits, so that it is quick to check by hand. Checked against PyNaCl
    /// (libsodium's Python binding), which made the same bytes from the same inputs (the script is in docs/backup.md).
    static func vector() throws -> [UInt8] {
        try SecretsArchive.seal(contents, passphrase: "correct horse battery staple", limits: .interactive, salt: salt, nonce: nonce)
    }

    @Test func theDocumentedVector() throws {
        let sealed = try Self.vector()
        #expect(sealed.count == SecretsArchive.headerLength + 251 + Sodium.xChaChaTagLength)
        #expect(Array(sealed.prefix(18)) == Array("CUSTODIAN-SECRETS".utf8) + [1])
        // The header: salt, opslimit 2, memlimit 64 MiB, nonce.
        #expect(
            Hex.encode(sealed.prefix(SecretsArchive.headerLength).dropFirst(18))
                == "000102030405060708090a0b0c0d0e0f" + "0000000000000002" + "0000000004000000" + "101112131415161718191a1b1c1d1e1f2021222324252627")
        #expect(Hex.encode(sealed) == Self.documentedVector, "the vector changed: update docs/backup.md")
        #expect(try SecretsArchive.open(sealed, passphrase: "correct horse battery staple") == Self.contents)
    }

    /// The whole file, as docs/backup.md gives it.
    static let documentedVector = """
        435553544f4449414e2d5345435245545301000102030405060708090a0b0c0d0e0f00000000000000020000000004000000
        101112131415161718191a1b1c1d1e1f20212223242526271c6ee39f5376c7f20a22dc5c1433d58bdb54b3a5cc5385fb04b8
        c24615f6c0cc33670e3eba81be901a9a14413d037af384bf2f721ac561a6af03fccf9efaa0aa929116a1fd3b7f21263086cc
        1075a59229be4ef6c5d1a378ae708b633a481a8c5ace91822bbb4c78e8dbb13337a832640be15fe441bf0dada54fee151f4e
        a504441678e72d6719ea3db759d02b6edb4a4237fb85b0b66f6fab63de3cdbe9130b4736efff59f62595a94d0cc51c44a79e
        9b0744ae41caf4114974e7a4816a720cc1a72c98626670cd0b8f37eb5d03e3323e7f8850d5cd2045c6f9d943048ab6c3461b
        c7dbd86ee380fb639df648ed1a600959aa68fa709fc06f61f9b0726ed00ae7b7657dd7aa8030282a4e
        """.replacingOccurrences(of: "\n", with: "")

    @Test func aRoundTripWithTheDefaultLimitsKeepsEveryFile() throws {
        var contents = Self.contents
        contents.files["tls/key.pem"] = Data("-----BEGIN PRIVATE KEY-----\n".utf8).base64EncodedString()
        let sealed = try SecretsArchive.seal(contents, passphrase: "another passphrase, long enough")
        #expect(try SecretsArchive.open(sealed, passphrase: "another passphrase, long enough") == contents)
        // Random salt and nonce: the same contents never seal to the same bytes.
        #expect(try SecretsArchive.seal(contents, passphrase: "another passphrase, long enough") != sealed)
    }

    @Test func theWrongPassphraseOpensNothing() throws {
        let sealed = try Self.vector()
        #expect(throws: CLIError.self) { try SecretsArchive.open(sealed, passphrase: "correct horse battery stapler") }
        #expect(opening(sealed, with: "Correct horse battery staple").contains("passphrase is wrong"))
    }

    @Test(arguments: [0, 5, 17, 18, 60, 81, 82, 97, 200])
    func aTruncatedArchiveIsRefused(keeping count: Int) throws {
        let sealed = try Self.vector()
        let message = opening(Array(sealed.prefix(count)), with: "correct horse battery staple")
        #expect(!message.isEmpty && !message.contains("opened"), "\(count) bytes: \(message)")
    }

    @Test func everyAlteredByteIsRefused() throws {
        let sealed = try Self.vector()
        // One byte of each part: magic, version, salt, limits, nonce, ciphertext, tag.
        for index in [0, 17, 20, 38, 45, 60, SecretsArchive.headerLength + 3, sealed.count - 1] {
            var altered = sealed
            altered[index] ^= 0x01
            #expect(throws: CLIError.self, "byte \(index)") { try SecretsArchive.open(altered, passphrase: "correct horse battery staple") }
        }
    }

    @Test func limitsOutOfRangeAreRefusedBeforeAnyWork() throws {
        var sealed = try Self.vector()
        // memlimit (bytes 42..<50) of 2^62: a crafted file must not make restore allocate it.
        sealed.replaceSubrange(42..<50, with: [0x40, 0, 0, 0, 0, 0, 0, 0])
        #expect(opening(sealed, with: "correct horse battery staple").contains("out of range"))
    }

    @Test func anotherFileIsNotTakenForAnArchive() {
        #expect(opening(Array("PGDMP\u{1}\u{0e}".utf8), with: "x").contains("does not begin with CUSTODIAN-SECRETS"))
        var otherVersion = Array("CUSTODIAN-SECRETS".utf8) + [2]
        otherVersion += [UInt8](repeating: 0, count: 100)
        #expect(opening(otherVersion, with: "x").contains("format 2"))
    }

    @Test func newerSchemasAreNamed() {
        let known = PlatformSchemas.known
        #expect(Set(known.keys) == ["auth", "devices", "vault", "routes", "statistics", "links", "audit"])
        #expect(PlatformSchemas.newer(in: known).isEmpty)
        var newer = known
        newer["devices", default: 0] += 1
        newer["elsewhere"] = 1
        #expect(
            PlatformSchemas.newer(in: newer) == [
                "devices \(known["devices"]! + 1) (this build knows \(known["devices"]!))"
            ], "a schema this build does not know is left alone")
    }

    func opening(_ bytes: [UInt8], with passphrase: String) -> String {
        do {
            _ = try SecretsArchive.open(bytes, passphrase: passphrase)
            return "opened"
        } catch {
            return error.description
        }
    }
}
