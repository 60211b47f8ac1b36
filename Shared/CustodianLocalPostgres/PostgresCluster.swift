import CustodianRuntime
import CustodianSecurity
import Foundation

/// A private PostgreSQL cluster under the data directory, made with the installed PostgreSQL binaries.
/// PostgreSQL refuses to run as root, so when we are root it runs as the `postgres` user.
public struct PostgresCluster: Sendable {
    public let directory: String
    public let secretsDirectory: String
    public let port: Int
    public let binaries: String

    public static let superuser = "custodian"
    public static let database = "custodian"

    public init(dataDirectory: String, port: Int) throws {
        self.directory = dataDirectory + "/postgres"
        self.secretsDirectory = dataDirectory + "/secrets"
        self.port = port
        guard let binaries = Self.findBinaries() else {
            throw LocalPostgresError(
                "PostgreSQL is not installed (no initdb found on PATH or in /usr/lib/postgresql/*/bin); install the postgresql package or pass --database-url"
            )
        }
        self.binaries = binaries
    }

    public static func findBinaries() -> String? {
        if let configured = ProcessInfo.processInfo.environment["CUSTODIAN_POSTGRES_BIN_DIR"] { return configured }
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .compactMap(Int.init).sorted(by: >).map { "/usr/lib/postgresql/\($0)/bin" }
        // Through a link on PATH (/usr/local/bin/initdb) to the folder that holds all of PostgreSQL's programs of that version.
        return Shell.find("initdb", extraDirectories: versions).map {
            (URL(fileURLWithPath: $0).resolvingSymlinksInPath().path as NSString).deletingLastPathComponent
        }
    }

    private var runAs: String? { getuid() == 0 ? "postgres" : nil }

    public var passwordFile: String { secretsDirectory + "/postgres-password" }

    public var isInitialised: Bool { FileManager.default.fileExists(atPath: directory + "/PG_VERSION") }

    /// Creates the cluster on first use, with a generated superuser password kept in the secrets directory.
    public func initialiseIfNeeded() throws {
        guard !isInitialised else { return }
        try ClusterFiles.makeDirectory(secretsDirectory)
        let password = ClusterFiles.read(passwordFile) ?? SecretToken.generate()
        try ClusterFiles.write(password, to: passwordFile)
        try ClusterFiles.makeDirectory(directory)
        // initdb reads the password from a file the postgres user can read; it is removed right after.
        let initPasswordFile = (directory as NSString).deletingLastPathComponent + "/.postgres-initpw"
        try ClusterFiles.write(password, to: initPasswordFile)
        if let user = runAs { try Shell.run(["/bin/chown", "-R", "\(user):\(user)", directory, initPasswordFile]) }
        defer { try? FileManager.default.removeItem(atPath: initPasswordFile) }
        try Shell.run(
            [
                binaries + "/initdb", "-D", directory, "-U", Self.superuser, "--auth=scram-sha-256", "--pwfile=\(initPasswordFile)",
                "--encoding=UTF8", "--locale=C",
            ], as: runAs)
    }

    /// Starts the cluster; with `walArchive`, every finished WAL segment is copied there (at least once a minute while
    /// anything is written), so that a base backup and the archive restore the database to any later moment.
    public func start(maximumConnections: Int = 100, walArchive: String? = nil) throws {
        // Loopback TCP only: no Unix socket, whose path under a deep data directory could exceed the limit.
        var options = "-p \(port) -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=\(maximumConnections)"
        if let walArchive {
            try prepareArchive(walArchive)
            // pg_ctl hands the options to a shell: the folder is checked to hold no quote, and the command is in double quotes.
            options += " -c wal_level=replica -c archive_mode=on -c archive_timeout=60"
            options += " -c \"archive_command=test ! -f '\(walArchive)/%f' && cp %p '\(walArchive)/%f'\""
        }
        try Shell.run(
            [binaries + "/pg_ctl", "-D", directory, "-l", directory + "/server.log", "-w", "-t", "60", "-o", options, "start"], as: runAs)
    }

    /// Makes the archive folder, owned by the user PostgreSQL runs as.
    func prepareArchive(_ folder: String) throws {
        guard folder.hasPrefix("/"), !folder.contains(where: { "'\"\\$`\n".contains($0) }) else {
            throw LocalPostgresError("the WAL archive must be an absolute path without quotes, backslashes, $ or `: \(folder)")
        }
        try ClusterFiles.makeDirectory(folder)
        if let user = runAs { try Shell.run(["/bin/chown", "\(user):\(user)", folder]) }
    }

    /// Replaces the (stopped, empty) cluster by a base backup (`pg_basebackup -Ft -z`) set to replay the WAL in
    /// `walArchive` up to `target` (a timestamptz; all of it when nil) when it starts, and then to open for writing.
    public func restore(baseBackup: String, walArchive: String, target: String?) throws {
        try prepareArchive(walArchive)
        try ClusterFiles.makeDirectory(directory)
        try Shell.run(["/bin/tar", "-xzf", baseBackup, "-C", directory])
        try? FileManager.default.removeItem(atPath: directory + "/postmaster.pid")
        var recovery = "\nrestore_command = 'cp \"\(walArchive)/%f\" \"%p\"'\n"
        if let target { recovery += "recovery_target_time = '\(target)'\nrecovery_target_action = 'promote'\n" }
        let autoConf = directory + "/postgresql.auto.conf"
        let existing = ClusterFiles.read(autoConf) ?? ""
        try ClusterFiles.write(existing + recovery, to: autoConf)
        try ClusterFiles.write("", to: directory + "/recovery.signal")
        if let user = runAs { try Shell.run(["/bin/chown", "-R", "\(user):\(user)", directory]) }
        _ = chmod(directory, 0o700)
    }

    /// The recovery settings ``restore(baseBackup:walArchive:target:)`` wrote, removed once the cluster is promoted.
    public func recoverySettings(target: String?) -> [String] {
        ["restore_command"] + (target == nil ? [] : ["recovery_target_time", "recovery_target_action"])
    }

    public func stop() {
        _ = try? Shell.run([binaries + "/pg_ctl", "-D", directory, "-m", "fast", "-w", "stop"], as: runAs)
    }

    /// The superuser's URL for the `custodian` database.
    public var adminURL: DatabaseURL {
        DatabaseURL(host: "127.0.0.1", port: port, username: Self.superuser, password: ClusterFiles.read(passwordFile), database: Self.database)
    }
}

public struct LocalPostgresError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// The cluster's few files: its password kept private to this user, its directories private too.
private enum ClusterFiles {
    static func write(_ text: String, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw LocalPostgresError("cannot write \(path)")
        }
    }

    static func read(_ path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func makeDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        _ = chmod(path, 0o700)
    }
}
