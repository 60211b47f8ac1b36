import CustodianRuntime
import Foundation
import Testing
import X509

@testable import CustodianCommands

/// What `custodian setup` leaves in the secrets folder for a deployment that mounts one folder per process
/// (docker-compose.yml, Deploy/k8s): each process's folder holds what that process reads and nothing else, so that a
/// process broken into cannot read another's database password or a key it has no use for.
@Suite("setup: the secrets folder")
struct SetupSecretsTests {
    static let rpc: Set<String> = ["rpc/ca.pem", "rpc/cert.pem", "rpc/key.pem"]
    /// Per process, the files in its folder. Only `auth` reads the tracing app's keys; `statistics` and the gateway
    /// seal nothing; the gateway reaches no database, and it alone serves HTTPS.
    static let expected: [String: Set<String>] = [
        "auth": rpc.union(["database.url", "sealing-key", "lemon-keys.json"]),
        "vault": rpc.union(["database.url", "sealing-key"]),
        "routes": rpc.union(["database.url", "sealing-key"]),
        "devices": rpc.union(["database.url", "sealing-key"]),
        "links": rpc.union(["database.url", "sealing-key"]),
        "statistics": rpc.union(["database.url"]),
        "gateway": rpc.union(["tls/cert.pem", "tls/key.pem"]),
    ]

    static func databaseURLs() -> [String: DatabaseURL] {
        Dictionary(
            uniqueKeysWithValues: ["auth", "vault", "routes", "devices", "statistics", "links"].map { service in
                (
                    service,
                    DatabaseURL(host: "db", port: 5432, username: "custodian_\(service)", password: "password-of-\(service)", database: "custodian")
                )
            })
    }

    @Test func eachProcessFolderHoldsOnlyWhatThatProcessReads() async throws {
        try await withTemporaryDirectory { secrets in
            try Setup.writeSecrets(secrets, databaseURLs: Self.databaseURLs(), rpcDomains: [])
            let folders = try FileManager.default.contentsOfDirectory(atPath: secrets).filter { name in
                var isFolder: ObjCBool = false
                return FileManager.default.fileExists(atPath: "\(secrets)/\(name)", isDirectory: &isFolder) && isFolder.boolValue
            }
            // Besides the process folders: the gateway's certificate as made, and the cluster's CA with its key.
            #expect(Set(folders) == Set(Self.expected.keys).union(["tls", "rpc-ca"]))
            for (process, files) in Self.expected {
                #expect(try Self.files(in: "\(secrets)/\(process)") == files, "\(process)")
                #expect(try mode("\(secrets)/\(process)") == 0o711, "\(process)")
            }
        }
    }

    @Test func eachServiceGetsItsOwnDatabaseURLAndTheSecretsAsMade() async throws {
        try await withTemporaryDirectory { secrets in
            let urls = Self.databaseURLs()
            try Setup.writeSecrets(secrets, databaseURLs: urls, rpcDomains: [])
            let sealingKey = try String(contentsOfFile: "\(secrets)/sealing-key", encoding: .utf8)
            let lemonKeys = try String(contentsOfFile: "\(secrets)/lemon-keys.json", encoding: .utf8)
            for (service, url) in urls {
                #expect(try String(contentsOfFile: "\(secrets)/\(service)/database.url", encoding: .utf8) == url.urlString)
                if FileManager.default.fileExists(atPath: "\(secrets)/\(service)/sealing-key") {
                    #expect(try String(contentsOfFile: "\(secrets)/\(service)/sealing-key", encoding: .utf8) == sealingKey.trimmed + "\n")
                }
            }
            #expect(try String(contentsOfFile: "\(secrets)/auth/lemon-keys.json", encoding: .utf8) == lemonKeys.trimmed + "\n")
            #expect(
                try String(contentsOfFile: "\(secrets)/gateway/tls/key.pem", encoding: .utf8)
                    == (try String(contentsOfFile: "\(secrets)/tls/key.pem", encoding: .utf8)).trimmed + "\n")
            // Readable by the process's user only.
            for secret in ["auth/database.url", "auth/sealing-key", "auth/lemon-keys.json", "auth/rpc/key.pem", "gateway/tls/key.pem", "sealing-key"]
            {
                #expect(try mode("\(secrets)/\(secret)") == 0o600, "\(secret)")
            }
        }
    }

    /// A second run (an upgrade, a new replica's folder) keeps the keys: a new sealing key would leave every secret
    /// sealed with the old one unreadable, new tracing keys would break every app that pinned them.
    @Test func runningAgainKeepsTheKeys() async throws {
        try await withTemporaryDirectory { secrets in
            try Setup.writeSecrets(secrets, databaseURLs: Self.databaseURLs(), rpcDomains: [])
            let made = try ["sealing-key", "lemon-keys.json", "tls/cert.pem", "rpc-ca/ca.pem", "devices/rpc/cert.pem", "devices/sealing-key"].map {
                try String(contentsOfFile: "\(secrets)/\($0)", encoding: .utf8)
            }
            try Setup.writeSecrets(secrets, databaseURLs: Self.databaseURLs(), rpcDomains: [])
            let again = try ["sealing-key", "lemon-keys.json", "tls/cert.pem", "rpc-ca/ca.pem", "devices/rpc/cert.pem", "devices/sealing-key"].map {
                try String(contentsOfFile: "\(secrets)/\($0)", encoding: .utf8)
            }
            #expect(again == made)
        }
    }

    /// `--rpc-domain`: a process reached over TCP is named `<process>-rpc.<domain>` in its certificate, besides its own name.
    @Test func rpcCertificatesNameTheProcessUnderEachDomain() async throws {
        try await withTemporaryDirectory { secrets in
            try Setup.writeSecrets(secrets, databaseURLs: Self.databaseURLs(), rpcDomains: ["custodian.svc.cluster.local", "example.internal"])
            for process in ["devices", "gateway"] {
                let certificate = try Certificate(pemEncoded: try String(contentsOfFile: "\(secrets)/\(process)/rpc/cert.pem", encoding: .utf8))
                let names = try #require(try certificate.extensions.subjectAlternativeNames).compactMap { name -> String? in
                    if case .dnsName(let text) = name { text } else { nil }
                }
                #expect(names == [process, "\(process)-rpc", "\(process)-rpc.custodian.svc.cluster.local", "\(process)-rpc.example.internal"])
            }
            // The CA's key stays in its own folder.
            #expect(FileManager.default.fileExists(atPath: "\(secrets)/rpc-ca/ca-key.pem"))
        }
    }

    /// The database `setup` and `up` create is named in SQL: only names that need no quoting get there.
    @Test func aDatabaseNameIsLettersDigitsDashesAndUnderscores() throws {
        try DatabaseName.validate("custodian_dev-2")
        for name in ["", "custodian; DROP DATABASE postgres", "cust\"odian", "custodian db", "cüstodian"] {
            #expect(throws: CLIError.self, "\(name)") { try DatabaseName.validate(name) }
        }
        let error = #expect(throws: CLIError.self) { try DatabaseName.validate("a b") }
        #expect(error?.description == "database name 'a b' may only contain letters, digits, - and _")
    }

    static func files(in folder: String) throws -> Set<String> {
        let enumerator = try #require(FileManager.default.enumerator(atPath: folder))
        var files: Set<String> = []
        while let path = enumerator.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: "\(folder)/\(path)", isDirectory: &isFolder), !isFolder.boolValue { files.insert(path) }
        }
        return files
    }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
