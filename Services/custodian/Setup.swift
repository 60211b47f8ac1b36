import ArgumentParser
import CustodianRuntime
import Foundation
import Logging

/// `custodian setup`: prepares a deployment (compose, a server) once, before the services start.
struct Setup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Creates the database, each service's role and schema, a TLS certificate and the first admin token.",
        discussion: "Writes each service's database URL to <secrets-dir>/db-<service>.url for CUSTODIAN_DATABASE_URL_FILE.")

    @Option(help: "An administrator's database URL (default: CUSTODIAN_ADMIN_DATABASE_URL).") var databaseURL: String?
    @Option(help: "Where secrets are written.") var secretsDir = "/secrets"

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
        Console.say("database   \(urls.count) service roles ready in \(adminURL)")
        Console.say("sealing    key in \(try Deployment.sealingKey(secretsDirectory: secrets))")
        Console.say("lemon      handshake keys in \(try Deployment.lemonKeys(secretsDirectory: secrets))")
        try Files.makeDirectory(secrets + "/tls", mode: 0o755)
        try SelfSignedCertificate.createIfMissing(certificatePath: secrets + "/tls/cert.pem", keyPath: secrets + "/tls/key.pem")
        Console.say("tls        \(secrets)/tls/cert.pem")
        let tokenPath = secrets + "/admin-token"
        if !FileManager.default.fileExists(atPath: tokenPath),
            let token = try await Deployment.bootstrapAdminToken(adminURL, force: false, label: "setup", logger: logger)
        {
            try Files.write(token, to: tokenPath)
            Console.say("admin      token created in \(tokenPath)")
        }
    }
}
