import Foundation
import Testing

@testable import CustodianCommands

/// How the commands that call a running platform find what they trust and authenticate with, and what they say
/// when they cannot.
@Suite("connection options")
struct ConnectionOptionTests {
    @Test func aCertificateProblemSaysHowToTrustUpsCertificate() throws {
        let trust = try TLSTrustOptions.parse([])
        let refused = trust.explain(
            description:
                "handshakeFailed(NIOSSL.BoringSSLError.sslError([Error: 268435581 error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED]))",
            server: "https://10.0.0.5:8443")
        #expect(refused.description.hasPrefix("https://10.0.0.5:8443 presented a certificate this command does not trust."))
        #expect(refused.description.contains("--ca-file (.custodian/tls/cert.pem in the directory it runs in"))
        #expect(refused.description.contains("--insecure skips the check (development only)"))
        // Anything else is only the reason.
        #expect(
            trust.explain(description: "connection refused", server: "https://127.0.0.1:9").description
                == "cannot reach https://127.0.0.1:9: connection refused")
    }

    @Test func anUnreadableCAFileIsNamedWithItsOption() throws {
        let trust = try TLSTrustOptions.parse(["--ca-file", "/nonexistent/ca.pem"])
        let error = #expect(throws: CLIError.self) { try trust.configuration() }
        #expect(error?.description.hasPrefix("cannot read the certificate /nonexistent/ca.pem (--ca-file): ") == true)
        #expect(try TLSTrustOptions.parse(["--insecure", "--ca-file", "/nonexistent/ca.pem"]).configuration().certificateVerification == .none)
    }

    @Test(.enabled(if: unset("CUSTODIAN_ADMIN_TOKEN")))
    func loadgenTakesTheAdminTokenUpKeeps() async throws {
        try await withTemporaryDirectory { data in
            let missing = #expect(throws: CLIError.self) { try ServerConnection.parse(["--data-dir", data]).adminToken() }
            #expect(missing?.description == "no admin token: pass --token, set CUSTODIAN_ADMIN_TOKEN, or run where \(data)/admin-token exists")
            try "token-from-up\n".write(toFile: data + "/admin-token", atomically: true, encoding: .utf8)
            #expect(try ServerConnection.parse(["--data-dir", data]).adminToken() == "token-from-up")
            #expect(try ServerConnection.parse(["--data-dir", data, "--token", "-given"]).adminToken() == "-given")
        }
    }

    @Test func benchFindsThePrivateClusterOfUp() async throws {
        try await withTemporaryDirectory { data in
            let none = #expect(throws: CLIError.self) { try ServerConnection.parse(["--data-dir", data]).privateClusterURL() }
            #expect(none?.description == "no private PostgreSQL in \(data): pass --database-url (an administrator's URL)")
            try FileManager.default.createDirectory(atPath: data + "/secrets", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: data + "/postgres", withIntermediateDirectories: true)
            try "postgres-password\n".write(toFile: data + "/secrets/postgres-password", atomically: true, encoding: .utf8)
            // postmaster.pid: pid, data directory, start time, port, …
            try "4242\n\(data)/postgres\n1700000000\n54321\n/tmp\n".write(
                toFile: data + "/postgres/postmaster.pid", atomically: true, encoding: .utf8)
            let url = try ServerConnection.parse(["--data-dir", data]).privateClusterURL()
            #expect(url.host == "127.0.0.1" && url.port == 54321 && url.password == "postgres-password")
        }
    }

    /// `custodian admin` runs where `custodian up` runs: the administrator's URL it wrote is the default.
    @Test(.enabled(if: unset("CUSTODIAN_DATABASE_URL")))
    func adminCommandsFindTheDatabaseOfUp() async throws {
        try await withTemporaryDirectory { data in
            let error = #expect(throws: (any Error).self) { try Admin.DatabaseOption.parse(["--data-dir", data]).url() }
            #expect(
                error.map(Admin.DatabaseOption.message(for:))?.hasPrefix(
                    "pass --database-url, set CUSTODIAN_DATABASE_URL, or run this where `custodian up` runs") == true)
            try "postgres://postgres:secret@127.0.0.1:6543/custodian".write(toFile: data + "/admin-database.url", atomically: true, encoding: .utf8)
            let url = try Admin.DatabaseOption.parse(["--data-dir", data]).url()
            #expect(url.port == 6543 && url.username == "postgres" && url.database == "custodian")
            let given = try Admin.DatabaseOption.parse(["--data-dir", data, "--database-url", "postgres://admin@db.example:5432/other"]).url()
            #expect(given.host == "db.example" && given.database == "other")
        }
    }

    @Test func aConsumersNameAndSealingKeyAreCheckedBeforeTheDatabase() async {
        #expect(await failure(["admin", "create-consumer", "--name", "  "]) == "a name has 1 to 100 characters and no control characters")
        #expect(await failure(["admin", "create-consumer", "--name", "tab\tbed"]) == "a name has 1 to 100 characters and no control characters")
        #expect(
            await failure(["admin", "create-consumer", "--name", "Photo tool", "--sealing-key-file", "/nonexistent/sealing-key"])
                == "cannot read the sealing key file /nonexistent/sealing-key")
    }
}
