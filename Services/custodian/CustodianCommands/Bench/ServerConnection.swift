import ArgumentParser
import CustodianLoad
import CustodianLocalPostgres
import CustodianRuntime
import Foundation

/// Where the platform is and how to trust and authenticate to it: the defaults fit a `custodian up` run from the
/// directory that holds its data directory.
struct ServerConnection: ParsableArguments {
    @Option(help: "The gateway's URL.") var server = "https://127.0.0.1:8443"
    @Option(help: "The data directory of `custodian up`: its certificate, admin token and process ids.") var dataDir = ".custodian"
    @Option(help: "A PEM file of the certificate to trust (default: <data-dir>/tls/cert.pem).") var caFile: String?
    @Flag(help: "Do not verify the server's TLS certificate.") var insecure = false
    @Option(parsing: .unconditional, help: "An admin token (default: CUSTODIAN_ADMIN_TOKEN, else <data-dir>/admin-token).") var token: String?

    func adminToken() throws -> String {
        if let token { return token }
        if let fromEnvironment = ProcessInfo.processInfo.environment["CUSTODIAN_ADMIN_TOKEN"], !fromEnvironment.isEmpty { return fromEnvironment }
        guard let stored = Files.read(dataDir + "/admin-token"), !stored.isEmpty else {
            throw CLIError("no admin token: pass --token, set CUSTODIAN_ADMIN_TOKEN, or run where \(dataDir)/admin-token exists")
        }
        return stored
    }

    func loadClient(connections: Int) throws -> LoadClient {
        let defaultCertificate = dataDir + "/tls/cert.pem"
        let ca = caFile ?? (FileManager.default.fileExists(atPath: defaultCertificate) ? defaultCertificate : nil)
        return try LoadClient.make(
            baseURL: server, adminToken: try adminToken(), caFile: server.hasPrefix("https") ? ca : nil,
            insecure: insecure, connections: connections)
    }
}

extension ServerConnection {
    /// The superuser URL of the private PostgreSQL that `custodian up` runs from `--data-dir`.
    func privateClusterURL() throws -> DatabaseURL {
        guard let password = Files.read(dataDir + "/secrets/postgres-password"),
            let pidFile = try? String(contentsOfFile: dataDir + "/postgres/postmaster.pid", encoding: .utf8)
        else {
            throw CLIError("no private PostgreSQL in \(dataDir): pass --database-url (an administrator's URL)")
        }
        let lines = pidFile.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count > 3, let port = Int(lines[3]) else { throw CLIError("cannot read the port of \(dataDir)/postgres/postmaster.pid") }
        return DatabaseURL(host: "127.0.0.1", port: port, username: PostgresCluster.superuser, password: password, database: PostgresCluster.database)
    }
}
