import ArgumentParser
import CustodianRuntime
import Foundation
import Logging

/// `custodian setup`: prepares a deployment (compose, a server) once, before the services start.
struct Setup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Creates the database, each service's role and schema, a TLS certificate and the first admin token.",
        discussion: """
            Writes each service's database URL to <secrets-dir>/db-<service>.url for CUSTODIAN_DATABASE_URL_FILE, and gives \
            each process a folder <secrets-dir>/<process>/ with only the secrets it reads (database.url, sealing-key, \
            lemon-keys.json; the gateway's tls/; everyone's rpc/ with the cluster CA and its own certificate for mutual \
            TLS over TCP), for deployments that mount one folder per process.
            """)

    @Option(help: "An administrator's database URL (default: CUSTODIAN_ADMIN_DATABASE_URL).") var databaseURL: String?
    @Option(help: "Where secrets are written.") var secretsDir = "/secrets"
    @Option(
        name: .customLong("rpc-domain"),
        help:
            "A DNS domain services are reached under over TCP (custodian.svc.cluster.local): each RPC certificate also names <process>-rpc.<domain>. Repeatable."
    )
    var rpcDomains: [String] = []

    func run() async throws {
        let logger = Logger(label: "custodian")
        guard let text = databaseURL ?? ProcessInfo.processInfo.environment["CUSTODIAN_ADMIN_DATABASE_URL"] else {
            throw ValidationError("pass --database-url or set CUSTODIAN_ADMIN_DATABASE_URL")
        }
        let adminURL = try DatabaseURL(text)
        let secrets = Files.absolute(secretsDir)
        try Files.makeDirectory(secrets, mode: 0o711)
        try await Deployment.ensureDatabase(adminURL, logger: logger)
        let urls = try await Deployment.provisionRoles(adminURL, secretsDirectory: secrets, logger: logger)
        for (service, url) in urls {
            try Files.write(url.urlString, to: "\(secrets)/db-\(service).url")
        }
        TerminalOutput.say("database   \(urls.count) service roles ready in \(adminURL)")
        try Self.writeSecrets(secrets, databaseURLs: urls, rpcDomains: rpcDomains)
        let tokenPath = secrets + "/admin-token"
        if !FileManager.default.fileExists(atPath: tokenPath),
            let token = try await Deployment.bootstrapAdminToken(adminURL, force: false, label: "setup", command: "custodian setup", logger: logger)
        {
            try Files.write(token, to: tokenPath)
            TerminalOutput.say("admin      token created in \(tokenPath)")
        }
    }

    /// What `setup` keeps besides the database, made once and kept on later runs: the sealing key, the tracing app's
    /// keys, the gateway's TLS certificate, the RPC certificates, and a folder per process with only what it reads.
    static func writeSecrets(_ secrets: String, databaseURLs: [String: DatabaseURL], rpcDomains: [String]) throws {
        TerminalOutput.say("sealing    key in \(try Deployment.sealingKey(secretsDirectory: secrets))")
        TerminalOutput.say("lemon      handshake keys in \(try Deployment.lemonKeys(secretsDirectory: secrets))")
        try Files.makeDirectory(secrets + "/tls", mode: 0o755)
        try SelfSignedCertificate.createIfMissing(certificatePath: secrets + "/tls/cert.pem", keyPath: secrets + "/tls/key.pem")
        TerminalOutput.say("tls        \(secrets)/tls/cert.pem")
        try distribute(secrets, databaseURLs: databaseURLs)
        try Deployment.rpcCertificates(secretsDirectory: secrets, domains: rpcDomains)
        TerminalOutput.say(
            "rpc tls    the cluster's CA in \(secrets)/rpc-ca/; each process's certificate, key and the CA in \(secrets)/<process>/rpc/")
        TerminalOutput.say("secrets    one folder per process in \(secrets)/<process>/, each with only what that process reads")
    }

    /// Copies into `<secrets>/<process>/` what that process reads, and nothing else: a container that mounts its own
    /// folder cannot read another service's database password or a key it has no use for.
    static func distribute(_ secrets: String, databaseURLs: [String: DatabaseURL]) throws {
        func copy(_ name: String, from source: String, into folder: String) throws {
            guard let contents = Files.read(source) else { throw CLIError("\(source) is missing") }
            try Files.write(contents + "\n", to: "\(folder)/\(name)")
        }
        for service in Platform.services {
            let folder = "\(secrets)/\(service)"
            try Files.makeDirectory(folder, mode: 0o711)
            guard let url = databaseURLs[service] else { throw CLIError("no database role for \(service)") }
            try Files.write(url.urlString, to: "\(folder)/database.url")
            if Platform.sealingKeyReaders.contains(service) { try copy("sealing-key", from: "\(secrets)/sealing-key", into: folder) }
            if Platform.lemonKeyReaders.contains(service) { try copy("lemon-keys.json", from: "\(secrets)/lemon-keys.json", into: folder) }
        }
        let gateway = "\(secrets)/gateway/tls"
        try Files.makeDirectory(gateway, mode: 0o711)
        try copy("cert.pem", from: "\(secrets)/tls/cert.pem", into: gateway)
        try copy("key.pem", from: "\(secrets)/tls/key.pem", into: gateway)
    }
}
