import ArgumentParser
import CustodianSodium
import CustodianVault
import Foundation

/// Client-side OwnYourData record encryption, as the app does it (docs/vault.md, "Record format").
struct Vault: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Encrypts and decrypts OwnYourData records.",
        subcommands: [Seal.self, Open.self])

    struct Seal: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Encrypts a JSON message for a repo and prints the record {\"value\",\"nonce\",\"version\"}.")

        @Option(help: "The repo's public key (64 hex characters, from GET /api/repos/{repo}/pub_key).") var publicKey: String
        @Option(help: "A 24-byte nonce as 48 hex characters (default: random; give one only to reproduce a record).") var nonce: String?
        @Option(help: "The JSON message (default: standard input).") var message: String?

        func run() throws {
            let text =
                message
                ?? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
                .trimmingCharacters(in: .newlines)
            var nonceBytes: [UInt8]?
            if let nonce {
                guard let bytes = [UInt8](hex: nonce) else { throw ValidationError("--nonce must be hexadecimal") }
                nonceBytes = bytes
            }
            let record = try OYDRecord.seal(text, publicKeyHex: publicKey, nonce: nonceBytes)
            print(#"{"value":"\#(record.value)","nonce":"\#(record.nonce)","version":"\#(record.version)"}"#)
        }
    }

    struct Open: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Decrypts records: one given on standard input with the repo's secret key, or a repo's items from a data vault with the owner's password."
        )

        @Option(help: "The repo's secret key (64 hex characters), to open one record locally.") var secretKey: String?
        @Option(help: "The record as JSON (default: standard input).") var record: String?
        @Option(help: "The data vault's URL, to decrypt a repo's items there.") var server: String?
        @Option(help: "The owner's email.") var email: String?
        @Option(help: "The owner's password (it opens the repo's key).") var password: String?
        @Option(help: "The repo, e.g. oyd.location.") var repo: String?
        @OptionGroup var trust: TLSTrustOptions

        func run() async throws {
            if let server {
                guard let email, let password, let repo else { throw ValidationError("--server needs --email, --password and --repo") }
                print(try await VaultClient(server: server, trust: trust).decryptedItems(email: email, password: password, repo: repo))
                return
            }
            guard let secretKey, let key = [UInt8](hex: secretKey), key.count == Sodium.boxKeyLength else {
                throw ValidationError("give --secret-key (64 hexadecimal characters), or --server with --email, --password and --repo")
            }
            let text = record ?? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            let parsed = try JSONDecoder().decode(OYDRecord.self, from: Data(text.utf8))
            print(try parsed.open(secretKey: key))
        }
    }
}
