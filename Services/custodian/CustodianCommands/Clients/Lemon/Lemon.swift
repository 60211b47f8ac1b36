import ArgumentParser
import AsyncHTTPClient
import CustodianLemon
import CustodianRuntime
import Foundation
import LemonClient
import NIOSSL

/// The tracing app's server keys (what apps pin, and their rotation), and calls to its API as an app makes them
/// (docs/lemon.md).
struct Lemon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Shows and rotates the LEMON tracing app's server keys, and calls its API as an app does.",
        subcommands: [Keys.self, Call.self])

    struct Keys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Shows and rotates the server keys apps pin.",
            subcommands: [Show.self, Rotate.self], defaultSubcommand: Show.self)
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Prints the public keys apps pin (JSON, current first): from a key file, or as a running server publishes them.",
            discussion: "With neither option, reads CUSTODIAN_LEMON_KEYS or CUSTODIAN_LEMON_KEYS_FILE.")

        @Option(help: "A key file (`custodian up` keeps it in <data-dir>/secrets/lemon-keys.json).") var file: String?
        @Option(help: "A running platform's URL, e.g. https://127.0.0.1:8443.") var server: String?
        @OptionGroup var trust: TLSTrustOptions

        func run() async throws {
            let keys: [ServerPublicKey]
            if let server {
                let http = try trust.httpClient()
                let fetched: Result<[ServerPublicKey], any Error>
                do {
                    fetched = .success(try await LemonClient.publishedKeys(baseURL: server, http: http))
                } catch {
                    fetched = .failure(error)
                }
                try? await http.shutdown()
                keys = try fetched.mapError { trust.explain($0, server: server) }.get()
            } else {
                keys = try LemonKeyFile.load(file).serverKeys().map(\.publicKey)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(keys), as: UTF8.self))
        }
    }

    struct Rotate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Adds a new key generation to a key file and makes it current; earlier ones stay accepted.",
            discussion: "Restart `auth` to use it. Ship apps with the new public keys before removing an old generation from the file.")

        @Option(help: "The key file to change.") var file: String
        @Option(help: "The new generation's id (default: the year and month, with a suffix if taken).") var id: String?

        func run() throws {
            var keyFile = try LemonKeyFile.load(file)
            let newID = id ?? LemonKeyID.new(avoiding: Set(keyFile.keys.map(\.id)))
            try keyFile.rotate(newID: newID)
            try Files.write(try keyFile.json(), to: file)
            TerminalOutput.say("lemon      key \(newID) is current in \(file) (\(keyFile.keys.count) generations)")
        }
    }
}

enum LemonKeyFile {
    static func load(_ path: String?) throws -> ServerKeyFile {
        let text: String
        if let path {
            guard let contents = Files.read(path) else { throw CLIError("cannot read the key file \(path)") }
            text = contents
        } else {
            guard let configured = (try Configuration(arguments: []))[RuntimeKey.lemonKeys] else {
                throw ValidationError("pass --file or --server, or set CUSTODIAN_LEMON_KEYS(_FILE)")
            }
            text = configured
        }
        do {
            return try ServerKeyFile(json: text)
        } catch {
            throw CLIError("\(error)")
        }
    }
}

/// Key generations are named by month (`2026-11`), which tells an operator their age at a glance.
enum LemonKeyID {
    static func new(avoiding taken: Set<String> = []) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month], from: Date())
        let base = String(format: "%04d-%02d", parts.year ?? 2026, parts.month ?? 1)
        var candidate = base
        var suffix = 2
        while taken.contains(candidate) {
            candidate = "\(base)-\(suffix)"
            suffix += 1
        }
        return candidate
    }
}
