import Foundation

// Not swift-configuration (apple/swift-configuration 1.4.0, read and probed against README.md "Configuration"): it
// keeps none of the documented behaviour without code of ours beside it, which would leave it a dictionary lookup.
// - `NAME_FILE=/path`: `EnvironmentVariablesProvider` reads a variable's own value only. The library's file secrets
//   are `DirectoryFilesProvider` (a directory whose file names are the keys; made `async`) and `FileProvider`
//   (JSON, YAML); neither reads the `CUSTODIAN_SEALING_KEY_FILE=/secrets/sealing-key` that compose, Deploy/k8s and
//   `custodian setup`/`up` pass.
// - Flags equal to variables: `CommandLineArgumentsProvider` (trait `CommandLineArguments`) splits every value at
//   commas, so `--devices-endpoints unix:/a.sock,unix:/b.sock` (a comma-separated list, README) throws "failed to
//   convert to type string"; it reads `--log-level` without a value as `true` and skips a stray word, both errors
//   here. Its keys are `--devices-endpoints` but `DEVICES_ENDPOINTS`: `CUSTODIAN_` needs a `KeyMappingProvider`
//   on one side.
// - Clear messages: a bad value read with a default silently becomes the default (`int(forKey:default:)` gave 8443
//   for `CUSTODIAN_HTTP_PORT=eighty`); read as required it throws "Config value for key 'CUSTODIAN_HTTP_PORT' failed
//   to convert to type int." (`ConfigError` is package-internal), not "... must be a whole number, not 'eighty'".
//   `Duration` converts from whole seconds only: `500ms`, `10m`, `7d` would stay ours.
// - An empty variable (compose's `${CUSTODIAN_EVENT_LOOPS:-}`) is "" there and unset here.
// - Families: a provider answers one key at a time and lists none; `links` reads every `CUSTODIAN_LINK_TEMPLATE_<NAME>`.
// Build time is not the reason: async-http-client 1.37.0 already compiles its `Configuration` module into this
// package. Nor is ArgumentParser a fit: it wants each option declared, and the flags are every `CUSTODIAN_` variable.

/// Settings from the environment and from command-line flags: `--database-url X` (or `--database-url=X`)
/// sets the same key as `CUSTODIAN_DATABASE_URL=X`, and a flag wins over the environment.
/// The keys every service reads are listed in ``RuntimeKey``; README.md documents them.
public struct Configuration: Sendable {
    private var values: [String: String]

    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        arguments: [String] = Array(CommandLine.arguments.dropFirst())
    ) throws {
        var values = environment.filter { $0.key.hasPrefix("CUSTODIAN_") }
        // `X_FILE=/path` sets X from a file, for secrets that compose or Kubernetes mount.
        for (key, path) in values where key.hasSuffix("_FILE") {
            let target = String(key.dropLast("_FILE".count))
            guard values[target] == nil else { continue }
            guard let contents = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ConfigurationError(message: "\(key) names \(path), which cannot be read")
            }
            values[target] = contents.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--") else {
                throw ConfigurationError(message: "unexpected argument '\(argument)' (settings are --name value)")
            }
            var name = String(argument.dropFirst(2))
            let value: String
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            } else {
                guard index + 1 < arguments.count else { throw ConfigurationError(message: "--\(name) needs a value") }
                index += 1
                value = arguments[index]
            }
            values[Self.key(forFlag: name)] = value
            index += 1
        }
        self.values = values
    }

    public static func key(forFlag flag: String) -> String {
        "CUSTODIAN_" + flag.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// Every setting, for families of keys (`CUSTODIAN_LINK_TEMPLATE_<NAME>`).
    public var all: [String: String] { values }

    public subscript(key: String) -> String? {
        values[key].flatMap { $0.isEmpty ? nil : $0 }
    }

    public func string(_ key: String, default defaultValue: String) -> String {
        self[key] ?? defaultValue
    }

    public func require(_ key: String) throws -> String {
        guard let value = self[key] else { throw ConfigurationError(message: "\(key) is not set") }
        return value
    }

    public func int(_ key: String, default defaultValue: Int) throws -> Int {
        guard let text = self[key] else { return defaultValue }
        guard let value = Int(text) else { throw ConfigurationError(message: "\(key) must be a whole number, not '\(text)'") }
        return value
    }

    /// Durations are written as a number with a unit: `500ms`, `30s`, `10m`, `2h`, `7d`.
    public func duration(_ key: String, default defaultValue: Duration) throws -> Duration {
        guard let text = self[key] else { return defaultValue }
        guard let value = Self.parseDuration(text) else {
            throw ConfigurationError(message: "\(key) must be a duration such as 30s, 10m or 7d, not '\(text)'")
        }
        return value
    }

    public static func parseDuration(_ text: String) -> Duration? {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            // Up to a century: beyond that it is a typo, and far beyond it the milliseconds do not fit an Int64.
            guard let number = Double(text.dropLast(suffix.count)), number >= 0, number * scale <= 100 * 365 * 86400 else { return nil }
            return .milliseconds(Int64((number * scale * 1000).rounded()))
        }
        return nil
    }

    /// `CUSTODIAN_EVENT_LOOPS`: the event loop threads of this process, 1 to 1024; nil when not set (one per core).
    public func eventLoops() throws -> Int? {
        guard let text = self[RuntimeKey.eventLoops] else { return nil }
        guard let loops = Int(text), (1...1024).contains(loops) else {
            throw ConfigurationError(message: "\(RuntimeKey.eventLoops) must be a whole number from 1 to 1024, not '\(text)'")
        }
        return loops
    }

    public mutating func set(_ key: String, _ value: String?) {
        values[key] = value
    }
}

public struct ConfigurationError: Error, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// The settings every service reads.
public enum RuntimeKey {
    /// `postgres://user:password@host:port/database`: the service's own role.
    public static let databaseURL = "CUSTODIAN_DATABASE_URL"
    /// A read-only replica of that database (same role), for the researcher exports; without it they read the primary.
    public static let databaseReadURL = "CUSTODIAN_DATABASE_READ_URL"
    /// Holds one directory per service with a socket per replica (default `.custodian/run`).
    public static let runtimeDirectory = "CUSTODIAN_RUNTIME_DIR"
    /// This replica's name, unique among the service's replicas (default: host name and process id).
    public static let instance = "CUSTODIAN_INSTANCE"
    /// Where this replica listens instead of its socket in the runtime directory: `unix:<path>` or `tcp://host:port`.
    public static let listen = "CUSTODIAN_LISTEN"
    /// `development` logs readable lines; anything else logs JSON lines.
    public static let environment = "CUSTODIAN_ENVIRONMENT"
    public static let logLevel = "CUSTODIAN_LOG_LEVEL"
    public static let maximumFrameSize = "CUSTODIAN_MAX_FRAME_SIZE"
    /// Event loop threads of the process (default: one per core the process may use).
    public static let eventLoops = "CUSTODIAN_EVENT_LOOPS"
    public static let databasePoolSize = "CUSTODIAN_DATABASE_POOL_SIZE"
    /// How long a call waits for a database connection before it is answered 503 (default 1500ms).
    public static let databaseWaitTimeout = "CUSTODIAN_DATABASE_WAIT_TIMEOUT"
    /// 32 random bytes, base64: the key services seal recoverable secrets with (usually given as `_FILE`).
    public static let sealingKey = "CUSTODIAN_SEALING_KEY"
    /// The tracing app's handshake keys (a JSON key file, docs/lemon.md); `auth` reads them.
    public static let lemonKeys = "CUSTODIAN_LEMON_KEYS"

    /// Mutual TLS for RPC over TCP (PEM texts; usually given as `_FILE`): the cluster CA's certificate, and this
    /// process's certificate, naming it, and private key. All three or none.
    public static let rpcTLSCA = "CUSTODIAN_RPC_TLS_CA"
    public static let rpcTLSCertificate = "CUSTODIAN_RPC_TLS_CERTIFICATE"
    public static let rpcTLSKey = "CUSTODIAN_RPC_TLS_KEY"

    /// How often a service found by name (`dns://` in `CUSTODIAN_<SERVICE>_ENDPOINTS`) is resolved again (default 5s).
    public static let resolveInterval = "CUSTODIAN_RESOLVE_INTERVAL"

    /// `CUSTODIAN_<SERVICE>_ENDPOINTS`: comma-separated endpoints of a service, or one `dns://name:port`, instead of
    /// its runtime directory.
    public static func endpoints(of service: String) -> String {
        "CUSTODIAN_\(service.uppercased())_ENDPOINTS"
    }
}
