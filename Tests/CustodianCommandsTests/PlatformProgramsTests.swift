import CustodianRuntime
import Testing

@testable import CustodianCommands

/// What `custodian up` starts: every replica and the gateway, each with only the secrets it reads. The services
/// read their settings from these variables (docs/operations.md), so the names are spelt out here.
@Suite("up: the processes and their environment")
struct PlatformProgramsTests {
    static let adminURL = "postgres://postgres:admin-password@127.0.0.1:5432/custodian"

    static func programs(_ environment: [String: String] = [:], replicas: String = "devices=2") throws -> [Supervisor.Program] {
        let urls = Dictionary(
            uniqueKeysWithValues: ["auth", "vault", "routes", "devices", "statistics", "links"].map { service in
                (service, "/data/secrets/db-\(service).url")
            })
        let platform = PlatformPrograms(
            environment: environment, runtimeDirectory: "/data/run", parent: 4242, eventLoops: 1, publicBaseURL: "https://127.0.0.1:8443",
            binaries: "/opt/custodian/bin", logs: "/data/logs", databaseURLFiles: urls, sealingKeyFile: "/data/secrets/sealing-key",
            lemonKeysFile: "/data/secrets/lemon-keys.json", gatewayEnvironment: ["CUSTODIAN_HTTP_PORT": "8443"])
        return platform.all(try ReplicaCounts(replicas))
    }

    @Test func everyReplicaRunsItsServicesExecutableWithItsOwnNameAndLog() throws {
        let programs = try Self.programs()
        #expect(programs.map(\.name) == ["auth", "vault", "routes", "devices-1", "devices-2", "statistics", "links", "gateway"])
        let devices = try #require(programs.first { $0.name == "devices-2" })
        #expect(devices.executable == "/opt/custodian/bin/devices")
        #expect(devices.logFile == "/data/logs/devices-2.log")
        #expect(devices.environment["CUSTODIAN_INSTANCE"] == "devices-2")
        #expect(programs.last?.executable == "/opt/custodian/bin/gateway")
    }

    @Test func eachSecretGoesOnlyToTheServicesThatReadIt() throws {
        // The administrator's URL `up` was given stays with `up`; each service reads its own URL from its own file.
        let programs = try Self.programs(["CUSTODIAN_DATABASE_URL": Self.adminURL, "CUSTODIAN_DATABASE_URL_FILE": "/data/admin-database.url"])
        for program in programs {
            let service = String(program.name.prefix { $0 != "-" })
            let environment = program.environment
            #expect(environment["CUSTODIAN_DATABASE_URL"] == nil, "\(program.name)")
            let expectedFile: String? = service == "gateway" ? nil : "/data/secrets/db-\(service).url"
            #expect(environment["CUSTODIAN_DATABASE_URL_FILE"] == expectedFile, "\(program.name)")
            let sealing = ["auth", "vault", "routes", "devices", "links"].contains(service)
            #expect(environment["CUSTODIAN_SEALING_KEY_FILE"] == (sealing ? "/data/secrets/sealing-key" : nil), "\(program.name)")
            #expect(environment["CUSTODIAN_LEMON_KEYS_FILE"] == (service == "auth" ? "/data/secrets/lemon-keys.json" : nil), "\(program.name)")
        }
        #expect(programs.last?.environment["CUSTODIAN_HTTP_PORT"] == "8443")
        #expect(programs.first?.environment["CUSTODIAN_HTTP_PORT"] == nil)
    }

    @Test func everyProcessFindsTheOthersAndWatchesUp() throws {
        for program in try Self.programs(["PATH": "/usr/bin"]) {
            #expect(program.environment["CUSTODIAN_RUNTIME_DIR"] == "/data/run", "\(program.name)")
            #expect(program.environment["CUSTODIAN_PARENT_PID"] == "4242", "\(program.name)")
            #expect(program.environment["CUSTODIAN_EVENT_LOOPS"] == "1", "\(program.name)")
            #expect(program.environment["CUSTODIAN_PUBLIC_BASE_URL"] == "https://127.0.0.1:8443", "\(program.name)")
            #expect(program.environment["PATH"] == "/usr/bin", "\(program.name)")
        }
    }

    /// What the caller set wins over `up`'s defaults (an empty value counts as unset).
    @Test func theCallersEventLoopsAndPublicURLAreKept() throws {
        let programs = try Self.programs(["CUSTODIAN_EVENT_LOOPS": "3", "CUSTODIAN_PUBLIC_BASE_URL": "https://custodian.example"])
        #expect(programs.allSatisfy { $0.environment["CUSTODIAN_EVENT_LOOPS"] == "3" })
        #expect(programs.allSatisfy { $0.environment["CUSTODIAN_PUBLIC_BASE_URL"] == "https://custodian.example" })
        let unset = try Self.programs(["CUSTODIAN_EVENT_LOOPS": "", "CUSTODIAN_PUBLIC_BASE_URL": ""])
        #expect(
            unset.allSatisfy {
                $0.environment["CUSTODIAN_EVENT_LOOPS"] == "1" && $0.environment["CUSTODIAN_PUBLIC_BASE_URL"] == "https://127.0.0.1:8443"
            })
    }
}
