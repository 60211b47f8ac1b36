import Foundation
import Testing

@testable import CustodianCommands

/// The client commands (`vault`, `route upload`, `geotag`, `stats import`) refuse wrong options and files with a
/// message that says what to give, before they reach a server.
@Suite("client commands: refused options")
struct ClientOptionTests {
    @Test func vaultSealAndOpenSayWhatTheyNeed() async {
        let key = String(repeating: "ab", count: 32)
        #expect(await failure(["vault", "seal", "--public-key", key, "--nonce", "not-hex", "--message", "{}"]) == "--nonce must be hexadecimal")
        #expect(
            await failure(["vault", "open", "--server", "https://127.0.0.1:8443", "--email", "a@b.c"])
                == "--server needs --email, --password and --repo")
        let giveAKey = "give --secret-key (64 hexadecimal characters), or --server with --email, --password and --repo"
        #expect(await failure(["vault", "open", "--record", "{}"]) == giveAKey)
        // 32 bytes, not 31.
        #expect(await failure(["vault", "open", "--secret-key", String(repeating: "ab", count: 31), "--record", "{}"]) == giveAKey)
    }

    @Test func statsImportRefusesAFileItCannotSend() async throws {
        #expect(await failure(["stats", "import", "/nonexistent/covid.csv"]) == "cannot read /nonexistent/covid.csv")
        try await withTemporaryDirectory { folder in
            let large = folder + "/large.csv"
            try Data(count: 6 * 1024 * 1024 + 1).write(to: URL(fileURLWithPath: large))
            #expect(await failure(["stats", "import", large]) == "\(large) is larger than 6 MiB: split it by date and import the parts")
        }
    }

    @Test(.enabled(if: unset("CUSTODIAN_ADMIN_TOKEN")))
    func statsImportNeedsAnAdminToken() async throws {
        try await withTemporaryDirectory { folder in
            try "country,date,confirmed,deaths,recovered\n".write(toFile: folder + "/covid.csv", atomically: true, encoding: .utf8)
            #expect(
                await failure(["stats", "import", folder + "/covid.csv", "--token-file", folder + "/none"])
                    == "pass --token, set CUSTODIAN_ADMIN_TOKEN or point --token-file at an admin token")
        }
    }

    @Test func geotagRefusesNegativeSeconds() async {
        let route = ["--passphrase", "secret", "--key", "k", "--secret", "s"]
        #expect(await failure(["geotag", "/tmp", "--max-gap=-1"] + route) == "--max-gap is a number of seconds")
        #expect(await failure(["geotag", "/tmp", "--max-gap", "2e9"] + route) == "--max-gap is a number of seconds")
        #expect(await failure(["geotag", "/tmp", "--extrapolate=-5"] + route) == "--extrapolate is a number of seconds, 0 or more")
    }

    @Test(.enabled(if: unset("CUSTODIAN_ROUTE_PASSPHRASE", "CUSTODIAN_ROUTE_PASSPHRASE_FILE", "CUSTODIAN_API_KEY", "CUSTODIAN_API_SECRET")))
    func routeUploadSaysWhichOptionIsMissingOrWrong() async throws {
        let gpx = ["route", "upload", "--gpx", "/nonexistent/route.gpx"]
        // Only white space is no passphrase: the app trims it too.
        #expect(
            await failure(gpx + ["--passphrase", "  \n", "--key", "k", "--secret", "s"])
                == "give a non-empty --passphrase (or --passphrase-file, CUSTODIAN_ROUTE_PASSPHRASE or CUSTODIAN_ROUTE_PASSPHRASE_FILE)")
        #expect(
            await failure(gpx + ["--passphrase-file", "/nonexistent/passphrase", "--key", "k", "--secret", "s"])
                == "cannot read the passphrase file /nonexistent/passphrase")
        #expect(
            await failure(gpx + ["--passphrase", "secret", "--key", "k"])
                == "give the API consumer's --key and --secret (or CUSTODIAN_API_KEY and CUSTODIAN_API_SECRET)")
        #expect(
            await failure(gpx + ["--passphrase", "secret", "--key", "k", "--secret", "s", "--server", "ftp://127.0.0.1"])
                == "--server must be an http(s) URL, e.g. https://127.0.0.1:8443")
        #expect(
            await failure(gpx + ["--passphrase", "secret", "--key", "k", "--secret", "s", "--accuracy=-1"]) == "--accuracy is a number of metres")
        #expect(await failure(gpx + ["--passphrase", "secret", "--key", "k", "--secret", "s"]) == "cannot read /nonexistent/route.gpx")
    }

    /// Keys, secrets and passphrases are URL-safe base64 or free text, and may start with "-".
    @Test func valuesThatStartWithADashAreValues() throws {
        let upload = try RouteCommand.Upload.parse(["--gpx", "r.gpx", "--passphrase", "-secret", "--key", "-key", "--secret", "--s"])
        #expect(upload.passphraseOptions.passphrase == "-secret")
        #expect(upload.store.key == "-key")
        #expect(upload.store.secret == "--s")
        #expect(try GeotagCommand.parse(["photos", "--route-id", "-abc"]).routeID == "-abc")
    }
}
