import ArgumentParser
import CustodianSodium
import Foundation
import VaultService

/// Client-side OwnYourData record encryption, as the app does it (seed 000, "Encrypting data").
struct Vault: ParsableCommand {
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
            let text = message ?? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
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

    struct Open: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Decrypts a record with the repo's secret key and prints the message.")

        @Option(help: "The repo's secret key (64 hex characters).") var secretKey: String
        @Option(help: "The record as JSON (default: standard input).") var record: String?

        func run() throws {
            let text = record ?? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            guard let key = [UInt8](hex: secretKey), key.count == Sodium.boxKeyLength else {
                throw ValidationError("--secret-key must be 64 hexadecimal characters")
            }
            let parsed = try JSONDecoder().decode(OYDRecord.self, from: Data(text.utf8))
            print(try parsed.open(secretKey: key))
        }
    }
}
