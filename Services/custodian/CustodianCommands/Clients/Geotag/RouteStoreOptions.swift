import ArgumentParser
import Foundation
import GeotagClient

/// The options every command that talks to a geotag route store takes: where it is and the API consumer's
/// key and secret that sign each request (`custodian route upload`, `custodian geotag`).
struct RouteStoreOptions: ParsableArguments {
    @Option(help: "The gateway's URL.") var server = TLSTrustOptions.defaultServer
    // Keys and secrets are URL-safe base64 and may start with "-": the next argument is the value whatever it looks like.
    @Option(parsing: .unconditional, help: "The API consumer key (default: CUSTODIAN_API_KEY).") var key: String?
    @Option(parsing: .unconditional, help: "The API consumer secret (default: CUSTODIAN_API_SECRET).") var secret: String?
    @OptionGroup var trust: TLSTrustOptions

    func client() throws -> RouteStoreClient {
        let environment = ProcessInfo.processInfo.environment
        guard let key = key ?? environment["CUSTODIAN_API_KEY"], let secret = secret ?? environment["CUSTODIAN_API_SECRET"] else {
            throw ValidationError("give the API consumer's --key and --secret (or CUSTODIAN_API_KEY and CUSTODIAN_API_SECRET)")
        }
        let tls = try trust.configuration()
        do {
            return try RouteStoreClient(server: server, key: key, secret: secret, tls: tls)
        } catch {
            throw ValidationError(error.description)
        }
    }
}

/// The passphrase a route is sealed with: given, in a file, or in the environment (kept out of the process list).
struct PassphraseOptions: ParsableArguments {
    // A passphrase may start with "-" too.
    @Option(parsing: .unconditional, help: "The route's passphrase (default: CUSTODIAN_ROUTE_PASSPHRASE).") var passphrase: String?
    @Option(help: "A file holding the passphrase (default: CUSTODIAN_ROUTE_PASSPHRASE_FILE).") var passphraseFile: String?

    /// Leading and trailing white space (a file's final line break) does not count, as for the app (docs/geotag.md, "Route format").
    func resolve() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        var value = passphrase
        if value == nil, let file = passphraseFile ?? environment["CUSTODIAN_ROUTE_PASSPHRASE_FILE"] {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { throw CLIError("cannot read the passphrase file \(file)") }
            value = text
        }
        guard let passphrase = value ?? environment["CUSTODIAN_ROUTE_PASSPHRASE"], !RouteSealer.normalised(passphrase).isEmpty else {
            throw ValidationError(
                "give a non-empty --passphrase (or --passphrase-file, CUSTODIAN_ROUTE_PASSPHRASE or CUSTODIAN_ROUTE_PASSPHRASE_FILE)")
        }
        return passphrase
    }
}
