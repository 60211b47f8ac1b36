import CustodianLocalPostgres
import CustodianRuntime
import Foundation

/// PostgreSQL's own programs (`pg_dump`, `pg_restore`, `pg_basebackup`) as backup and restore run them: found where
/// `custodian up` finds `initdb`, given the password in the environment rather than on the command line, and given a
/// URL without it.
struct PostgresTools {
    let binaries: String

    init() throws {
        guard let binaries = PostgresCluster.findBinaries() else {
            throw CLIError("PostgreSQL's programs are not installed (no pg_dump on PATH or in /usr/lib/postgresql/*/bin); install postgresql-client")
        }
        self.binaries = binaries
    }

    /// Runs `tool` against `url`'s server: `arguments` name the database as they need to (`--dbname` takes the URL).
    @discardableResult
    func run(_ tool: String, _ arguments: [String], url: DatabaseURL) throws -> String {
        do {
            return try Shell.run([binaries + "/" + tool] + arguments, environment: ["PGPASSWORD": url.password ?? "", "PGCONNECT_TIMEOUT": "10"])
        } catch let failure as Shell.Failure {
            throw CLIError(
                "\(tool) failed (status \(failure.status)): \(failure.output.trimmingCharacters(in: .whitespacesAndNewlines).suffix(2000))")
        }
    }

    /// `url` as libpq takes it, without the password.
    static func connectionString(_ url: DatabaseURL) -> String {
        url.with(username: url.username, password: nil).urlString
    }
}
