import CustodianRPC
import Foundation
import Logging
import Testing
@testable import CustodianProcess
@testable import CustodianRuntime

@Suite("Configuration from environment and flags")
struct ConfigurationTests {
    @Test func flagsOverrideTheEnvironment() throws {
        let configuration = try Configuration(
            environment: ["CUSTODIAN_DATABASE_URL": "postgres://env@h/db", "CUSTODIAN_LOG_LEVEL": "debug", "HOME": "/root"],
            arguments: ["--database-url", "postgres://flag@h/db", "--runtime-dir=/run/x"])
        #expect(configuration[RuntimeKey.databaseURL] == "postgres://flag@h/db")
        #expect(configuration[RuntimeKey.runtimeDirectory] == "/run/x")
        #expect(configuration[RuntimeKey.logLevel] == "debug")
        #expect(configuration["HOME"] == nil, "only CUSTODIAN_ variables are settings")
    }

    @Test func aFileVariableSuppliesASecret() throws {
        let path = NSTemporaryDirectory() + "custodian-secret-\(UUID().uuidString)"
        try "postgres://custodian_auth:s3cret@db/custodian\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let configuration = try Configuration(environment: ["CUSTODIAN_DATABASE_URL_FILE": path], arguments: [])
        #expect(configuration[RuntimeKey.databaseURL] == "postgres://custodian_auth:s3cret@db/custodian")
        #expect(throws: ConfigurationError.self) {
            try Configuration(environment: ["CUSTODIAN_DATABASE_URL_FILE": "/nonexistent/secret"], arguments: [])
        }
    }

    @Test func badArgumentsAndValuesAreExplained() throws {
        #expect(throws: ConfigurationError.self) { try Configuration(environment: [:], arguments: ["stray"]) }
        #expect(throws: ConfigurationError.self) { try Configuration(environment: [:], arguments: ["--port"]) }
        let configuration = try Configuration(environment: ["CUSTODIAN_HTTP_PORT": "eighty", "CUSTODIAN_SERVICE_TIMEOUT": "soon"], arguments: [])
        #expect(throws: ConfigurationError.self) { try configuration.int("CUSTODIAN_HTTP_PORT", default: 1) }
        #expect(throws: ConfigurationError.self) { try configuration.duration("CUSTODIAN_SERVICE_TIMEOUT", default: .seconds(1)) }
    }

    // What a settings library must keep to replace this one; the reasons swift-configuration 1.4.0 does not are at the
    // top of Configuration.swift.

    @Test func aVariableWinsOverItsFileAndAFlagOverBoth() throws {
        let path = NSTemporaryDirectory() + "custodian-secret-\(UUID().uuidString)"
        try "from-file\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = ["CUSTODIAN_DATABASE_URL_FILE": path]
        #expect(
            try Configuration(environment: file.merging(["CUSTODIAN_DATABASE_URL": "from-env"]) { $1 }, arguments: [])[RuntimeKey.databaseURL]
                == "from-env")
        #expect(try Configuration(environment: file, arguments: ["--database-url=from-flag"])[RuntimeKey.databaseURL] == "from-flag")
    }

    /// `CUSTODIAN_<SERVICE>_ENDPOINTS` is a comma-separated list, as a variable and as a flag alike.
    @Test func aFlagsValueIsOneTextCommasAndAll() throws {
        let configuration = try Configuration(
            environment: [:], arguments: ["--devices-endpoints", "unix:/a.sock,unix:/b.sock", "--log-level", "debug"])
        #expect(configuration[RuntimeKey.endpoints(of: "devices")] == "unix:/a.sock,unix:/b.sock")
        #expect(configuration[RuntimeKey.logLevel] == "debug")
    }

    /// Compose passes `CUSTODIAN_EVENT_LOOPS: ${CUSTODIAN_EVENT_LOOPS:-}`: empty when the operator set nothing.
    @Test func anEmptyValueIsUnset() throws {
        let configuration = try Configuration(environment: ["CUSTODIAN_EVENT_LOOPS": "", "CUSTODIAN_HTTP_PORT": ""], arguments: [])
        #expect(try configuration.eventLoops() == nil)
        #expect(try configuration.int("CUSTODIAN_HTTP_PORT", default: 8443) == 8443)
        #expect(throws: ConfigurationError.self) { try configuration.require("CUSTODIAN_HTTP_PORT") }
    }

    /// A family of keys (`links`' `CUSTODIAN_LINK_TEMPLATE_<NAME>`) is found by listing the settings, from either source.
    @Test func aFamilyOfKeysIsListed() throws {
        let configuration = try Configuration(
            environment: ["CUSTODIAN_LINK_TEMPLATE_SURVEY": "https://a.example/{token}", "PATH": "/bin"],
            arguments: ["--link-template-other", "https://b.example/{token}"])
        #expect(
            configuration.all == [
                "CUSTODIAN_LINK_TEMPLATE_SURVEY": "https://a.example/{token}", "CUSTODIAN_LINK_TEMPLATE_OTHER": "https://b.example/{token}",
            ])
    }

    /// A process that cannot start prints `<name>: <message>` (ProcessStart): each message names the setting and
    /// what was wrong, and a bad value is never quietly replaced by the default.
    @Test func messagesNameTheSettingAndWhatWasWrong() throws {
        func message(_ body: () throws -> Void) -> String? {
            do { try body() } catch { return "\(error)" }
            return nil
        }
        #expect(
            message { _ = try Configuration(environment: [:], arguments: ["stray"]) } == "unexpected argument 'stray' (settings are --name value)")
        #expect(message { _ = try Configuration(environment: [:], arguments: ["--log-level"]) } == "--log-level needs a value")
        #expect(
            message { _ = try Configuration(environment: ["CUSTODIAN_DATABASE_URL_FILE": "/nonexistent/secret"], arguments: []) }
                == "CUSTODIAN_DATABASE_URL_FILE names /nonexistent/secret, which cannot be read")
        let configuration = try Configuration(environment: ["CUSTODIAN_HTTP_PORT": "eighty", "CUSTODIAN_SERVICE_TIMEOUT": "soon"], arguments: [])
        #expect(
            message { _ = try configuration.int("CUSTODIAN_HTTP_PORT", default: 8443) } == "CUSTODIAN_HTTP_PORT must be a whole number, not 'eighty'")
        #expect(
            message { _ = try configuration.duration("CUSTODIAN_SERVICE_TIMEOUT", default: .seconds(10)) }
                == "CUSTODIAN_SERVICE_TIMEOUT must be a duration such as 30s, 10m or 7d, not 'soon'")
        #expect(message { _ = try configuration.require(RuntimeKey.databaseURL) } == "CUSTODIAN_DATABASE_URL is not set")
    }

    @Test func eventLoopsAreAWholeNumberFromOneTo1024() throws {
        #expect(try Configuration(environment: [:], arguments: []).eventLoops() == nil)
        #expect(try Configuration(environment: ["CUSTODIAN_EVENT_LOOPS": "3"], arguments: []).eventLoops() == 3)
        #expect(try Configuration(environment: [:], arguments: ["--event-loops", "1"]).eventLoops() == 1)
        for bad in ["0", "-2", "1025", "two", "1.5"] {
            #expect(throws: ConfigurationError.self, "\(bad)") {
                try Configuration(environment: ["CUSTODIAN_EVENT_LOOPS": bad], arguments: []).eventLoops()
            }
        }
    }

    @Test(arguments: [
        ("500ms", Duration.milliseconds(500)), ("30s", .seconds(30)), ("10m", .seconds(600)), ("2h", .seconds(7200)), ("14d", .seconds(14 * 86400)),
        ("1.5s", .milliseconds(1500)),
    ])
    func durations(text: String, expected: Duration) {
        #expect(Configuration.parseDuration(text) == expected)
    }

    @Test func durationsWithoutAUnitOrNegativeAreRefused() {
        #expect(Configuration.parseDuration("30") == nil)
        #expect(Configuration.parseDuration("-1s") == nil)
    }
}

@Suite("Database URLs")
struct DatabaseURLTests {
    @Test func aFullURLIsParsed() throws {
        let url = try DatabaseURL("postgres://custodian_devices:p%40ss@db.local:6543/custodian")
        #expect(url == DatabaseURL(host: "db.local", port: 6543, username: "custodian_devices", password: "p@ss", database: "custodian"))
        #expect(url.description == "postgres://custodian_devices@db.local:6543/custodian", "the password stays out of logs")
        #expect(try DatabaseURL(url.urlString) == url, "a URL survives a round trip, special characters included")
    }

    @Test func defaultsAndErrors() throws {
        let url = try DatabaseURL("postgresql://alice@localhost")
        #expect(url.port == 5432)
        #expect(url.database == "alice")
        #expect(throws: ConfigurationError.self) { try DatabaseURL("mysql://a@b/c") }
        #expect(throws: ConfigurationError.self) { try DatabaseURL("postgres://localhost/db") }
    }

    @Test func anotherRoleOnTheSameDatabase() throws {
        let admin = try DatabaseURL("postgres://postgres:x@db:5432/custodian")
        #expect(admin.with(username: "custodian_auth", password: "y").urlString == "postgres://custodian_auth:y@db:5432/custodian")
    }
}

@Suite("Endpoints")
struct EndpointTests {
    @Test func unixAndTCPEndpoints() throws {
        #expect(try Endpoint("unix:/run/custodian/auth/a.sock") == .unix(path: "/run/custodian/auth/a.sock"))
        #expect(try Endpoint("/run/x.sock") == .unix(path: "/run/x.sock"))
        #expect(try Endpoint("tcp://links:7000") == .tcp(host: "links", port: 7000))
        #expect(try Endpoint("tcp://[::1]:7000") == .tcp(host: "::1", port: 7000))
        #expect(try Endpoint("tcp://[::1]:7000").description == "tcp://[::1]:7000")
    }

    @Test func tooLongSocketPathsAndNonsenseAreRefused() {
        #expect(throws: EndpointError.self) { try Endpoint("unix:/" + String(repeating: "x", count: 107)) }
        #expect(throws: EndpointError.self) { try Endpoint("tcp://host") }
        #expect(throws: EndpointError.self) { try Endpoint("tcp://host:99999") }
        #expect(throws: EndpointError.self) { try Endpoint("http://host:80") }
    }

    @Test func replicaSocketsLiveUnderTheServicesDirectory() {
        let runtime = RuntimeDirectory(path: "/run/custodian")
        #expect(runtime.socketPath(service: "vault", instance: "vault-2") == "/run/custodian/vault/vault-2.sock")
    }
}

@Suite("Where a service's replicas are found")
struct ServiceDiscoverySettingTests {
    @Test func endpointsOrOneNameWhoseAddressesAreTheReplicas() throws {
        #expect(
            try RPCClient.discovery("unix:/run/a.sock, tcp://10.0.0.2:7000")
                == .endpoints([.unix(path: "/run/a.sock"), .tcp(host: "10.0.0.2", port: 7000)]))
        #expect(
            try RPCClient.discovery("dns://devices-rpc.custodian.svc.cluster.local:7000")
                == .dns(host: "devices-rpc.custodian.svc.cluster.local", port: 7000))
        for bad in ["dns://devices:0", "dns://devices", "dns://:7000", "dns://a:7000,dns://b:7000", "tcp://x"] {
            #expect(throws: EndpointError.self, "\(bad)") { try RPCClient.discovery(bad) }
        }
    }

    @Test func aResolveIntervalBelow100msIsRefused() throws {
        let logger = Logger(label: "configuration-tests")
        for interval in ["0s", "50ms"] {
            let configuration = try Configuration(environment: [RuntimeKey.resolveInterval: interval], arguments: [])
            #expect(throws: ConfigurationError.self, "\(interval)") {
                try RPCClient.platform(for: ["devices"], configuration: configuration, logger: logger)
            }
        }
        let fine = try Configuration(environment: [RuntimeKey.resolveInterval: "100ms"], arguments: [])
        try RPCClient.platform(for: ["devices"], configuration: fine, logger: logger).shutdown()
    }
}
