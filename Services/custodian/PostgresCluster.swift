import CustodianRuntime
import CustodianSecurity
import Foundation

/// A private PostgreSQL cluster under the data directory, made with the installed PostgreSQL binaries.
/// PostgreSQL refuses to run as root, so when we are root it runs as the `postgres` user.
struct PostgresCluster {
    let directory: String
    let secretsDirectory: String
    let port: Int
    let binaries: String

    static let superuser = "custodian"
    static let database = "custodian"

    init(dataDirectory: String, port: Int) throws {
        self.directory = dataDirectory + "/postgres"
        self.secretsDirectory = dataDirectory + "/secrets"
        self.port = port
        guard let binaries = Self.findBinaries() else {
            throw CLIError("PostgreSQL is not installed (no initdb found on PATH or in /usr/lib/postgresql/*/bin); install the postgresql package or pass --database-url")
        }
        self.binaries = binaries
    }

    static func findBinaries() -> String? {
        if let configured = ProcessInfo.processInfo.environment["CUSTODIAN_POSTGRES_BIN_DIR"] { return configured }
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .compactMap(Int.init).sorted(by: >).map { "/usr/lib/postgresql/\($0)/bin" }
        return Shell.find("initdb", extraDirectories: versions).map { ($0 as NSString).deletingLastPathComponent }
    }

    private var runAs: String? { getuid() == 0 ? "postgres" : nil }

    var passwordFile: String { secretsDirectory + "/postgres-password" }

    var isInitialised: Bool { FileManager.default.fileExists(atPath: directory + "/PG_VERSION") }

    /// Creates the cluster on first use, with a generated superuser password kept in the secrets directory.
    func initialiseIfNeeded() throws {
        guard !isInitialised else { return }
        try Files.makeDirectory(secretsDirectory)
        let password = Files.read(passwordFile) ?? SecretToken.generate()
        try Files.write(password, to: passwordFile)
        try Files.makeDirectory(directory)
        // initdb reads the password from a file the postgres user can read; it is removed right after.
        let initPasswordFile = (directory as NSString).deletingLastPathComponent + "/.postgres-initpw"
        try Files.write(password, to: initPasswordFile)
        if let user = runAs { try Shell.run(["/bin/chown", "-R", "\(user):\(user)", directory, initPasswordFile]) }
        defer { try? FileManager.default.removeItem(atPath: initPasswordFile) }
        try Shell.run(
            [binaries + "/initdb", "-D", directory, "-U", Self.superuser, "--auth=scram-sha-256", "--pwfile=\(initPasswordFile)",
             "--encoding=UTF8", "--locale=C"], as: runAs)
    }

    func start() throws {
        // Loopback TCP only: no Unix socket, whose path under a deep data directory could exceed the limit.
        try Shell.run(
            [binaries + "/pg_ctl", "-D", directory, "-l", directory + "/server.log", "-w", "-t", "60",
             "-o", "-p \(port) -c listen_addresses=127.0.0.1 -c unix_socket_directories=''", "start"], as: runAs)
    }

    func stop() {
        _ = try? Shell.run([binaries + "/pg_ctl", "-D", directory, "-m", "fast", "-w", "stop"], as: runAs)
    }

    /// The superuser's URL for the `custodian` database.
    var adminURL: DatabaseURL {
        DatabaseURL(host: "127.0.0.1", port: port, username: Self.superuser, password: Files.read(passwordFile), database: Self.database)
    }
}

struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
