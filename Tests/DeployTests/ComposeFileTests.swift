import CustodianRuntime
import Foundation
import ProcessTestSupport
import Testing
import Yams

// Static checks of docker-compose.yml and Deploy/Dockerfile against Package.swift: no Docker engine is
// needed, so a renamed product, a forgotten volume or a copy-pasted secret path fails here and not at deploy time.
@Suite("Deployment files")
struct ComposeFileTests {
    /// The command-line tool: it provisions the deployment (`custodian setup`) but is not a long-running service.
    static let commandLineProduct = "custodian"
    /// The image's one executable, which every other is a link to: no compose service runs it by this name.
    static let multiCallProduct = "multicall"

    /// OpenTelemetry's variables the processes read (docs/operations.md, "Tracing"), which the deployments pass on.
    static let tracingVariables: Set<String> = [
        "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG",
        "OTEL_RESOURCE_ATTRIBUTES",
    ]

    let compose: ComposeFile
    let products: [String]
    let dockerfile: Dockerfile

    init() throws {
        compose = try ComposeFile(yaml: repositoryFile("docker-compose.yml"))
        products = try executableProducts(inManifest: repositoryFile("Package.swift"))
        dockerfile = try Dockerfile(text: repositoryFile("Deploy/Dockerfile"))
    }

    /// Services built from this repository that run a platform service (not the one-shot command line).
    var platformServices: [ComposeService] {
        compose.projectServices.filter { service in
            guard let executable = service.command.first else { return false }
            return executable != Self.commandLineProduct && products.contains(executable)
        }
    }

    @Test func everyProjectServiceRunsAnExecutableProduct() throws {
        try #require(!products.isEmpty, "found no `.executable(name: ...)` products in Package.swift")
        for service in compose.projectServices {
            guard let executable = service.command.first else {
                Issue.record("service '\(service.name)' has no command, and the image has no default service")
                continue
            }
            #expect(
                products.contains(executable),
                "service '\(service.name)' runs '\(executable)', which is not an executable product in Package.swift")
        }
        let running = Set(compose.projectServices.compactMap(\.command.first))
        for product in products where product != Self.commandLineProduct && product != Self.multiCallProduct {
            #expect(running.contains(product), "executable product '\(product)' is not run by any compose service")
        }
    }

    @Test func setupProvisionsTheSecretsBeforeTheServicesStart() throws {
        let setup = try #require(compose.setupService, "no service runs `\(Self.commandLineProduct) setup`")
        for service in platformServices {
            #expect(
                service.dependencies[setup.name] == "service_completed_successfully",
                "service '\(service.name)' does not wait for '\(setup.name)' to complete successfully")
        }
    }

    @Test func everyMountedVolumeIsDeclared() {
        for service in compose.services {
            for volume in service.mounts.compactMap(\.volume) {
                #expect(
                    compose.volumes.contains(volume),
                    "service '\(service.name)' mounts volume '\(volume)', which is not declared under top-level `volumes`")
            }
        }
    }

    @Test func everyDependencyExists() {
        for service in compose.services {
            for (name, condition) in service.dependencies.sorted(by: { $0.key < $1.key }) {
                guard let dependency = compose.service(named: name) else {
                    Issue.record("service '\(service.name)' depends on '\(name)', which is not a service")
                    continue
                }
                switch condition {
                case "service_healthy":
                    #expect(
                        dependency.hasHealthcheck,
                        "service '\(service.name)' waits for '\(name)' to be healthy, but '\(name)' has no healthcheck")
                case "service_completed_successfully":
                    #expect(
                        dependency.restart == nil || dependency.restart == "no" || dependency.restart == "false",
                        "service '\(service.name)' waits for '\(name)' to complete, but '\(name)' restarts (\(dependency.restart ?? ""))")
                default:
                    break
                }
            }
        }
    }

    @Test func fileVariablesPointIntoMountedSecrets() throws {
        let setup = try #require(compose.setupService, "no service runs `\(Self.commandLineProduct) setup`")
        let writtenBySetup = Set(setup.mounts.filter { !$0.readOnly }.compactMap(\.volume))
        for service in compose.services {
            for (key, path) in service.environment.sorted(by: { $0.key < $1.key }) where key.hasSuffix("_FILE") {
                guard let mount = service.mount(containing: path) else {
                    Issue.record("service '\(service.name)': \(key)=\(path) is not under any path the service mounts")
                    continue
                }
                if let volume = mount.volume {
                    #expect(
                        writtenBySetup.contains(volume),
                        "service '\(service.name)': \(key) reads volume '\(volume)', which '\(setup.name)' does not write")
                }
            }
        }
    }

    /// `custodian setup` gives each process a volume of its own with only what it reads (`Platform.sealingKeyReaders`,
    /// `Platform.lemonKeyReaders`), mounted in setup at `<secrets>/<process>`: a service mounts that volume and no
    /// other secrets, and is given a secret's variable only when it reads that secret. No mount may rely on a volume
    /// `subpath`: engines before 26 ignore it silently and mount the whole volume, every secret in every container.
    @Test func eachServiceMountsOnlyItsOwnSecrets() throws {
        let setup = try #require(compose.setupService, "no service runs `\(Self.commandLineProduct) setup`")
        let setupSecrets = setup.mounts.filter { !$0.readOnly && $0.volume != nil }
        let secretVolumes = Set(setupSecrets.compactMap(\.volume))
        // Setup's own volume: the one the per-process volumes are mounted inside.
        let root = try #require(
            setupSecrets.first { mount in setupSecrets.contains { $0.target.hasPrefix(mount.target + "/") } },
            "setup mounts no secrets volume with per-process volumes inside it")
        for service in compose.services {
            for mount in service.mounts {
                #expect(mount.subpath == nil, "service '\(service.name)' mounts a subpath of '\(mount.volume ?? "")', which engines before 26 ignore")
            }
        }
        for service in platformServices {
            guard let executable = service.command.first else { continue }
            let secretMounts = service.mounts.filter { $0.volume.map(secretVolumes.contains) ?? false }
            let own = setupSecrets.first { $0.target == root.target + "/" + executable }
            #expect(own != nil, "setup mounts no volume at \(root.target)/\(executable) for service '\(service.name)'")
            #expect(secretMounts.count == 1, "service '\(service.name)' mounts \(secretMounts.count) secrets volumes, not only its own")
            for mount in secretMounts {
                #expect(
                    mount.volume == own?.volume,
                    "service '\(service.name)' mounts '\(mount.volume ?? "")', not its own secrets volume '\(own?.volume ?? "?")'")
                #expect(mount.readOnly, "service '\(service.name)' mounts its secrets writable")
            }
            let expected: [(String, Bool)] = [
                ("CUSTODIAN_SEALING_KEY_FILE", Platform.sealingKeyReaders.contains(executable)),
                ("CUSTODIAN_LEMON_KEYS_FILE", Platform.lemonKeyReaders.contains(executable)),
                ("CUSTODIAN_DATABASE_URL_FILE", Platform.services.contains(executable)),
            ]
            for (key, reads) in expected {
                #expect(
                    (service.environment[key] != nil) == reads,
                    "service '\(service.name)' \(reads ? "reads" : "does not read") \(key) but compose \(reads ? "does not set" : "sets") it")
            }
        }
    }

    /// `OTEL_X=… docker compose up` reaches every process; unset in the shell, the variable is empty, which the
    /// processes take as unset (a default here would export without the operator asking).
    @Test func everyProcessIsPassedTheTracingVariables() {
        for service in platformServices {
            for variable in Self.tracingVariables.sorted() {
                #expect(
                    service.environment[variable] == "${\(variable):-}",
                    "service '\(service.name)' sets \(variable) to \(service.environment[variable] ?? "nothing"), not ${\(variable):-}")
            }
        }
    }

    @Test func gatewayServesTLSOn8443() throws {
        let gateway = try #require(
            compose.projectServices.first { $0.command.first == "gateway" },
            "no service runs the gateway")
        #expect(
            gateway.ports.contains { $0.container == "8443" && $0.host != nil },
            "service '\(gateway.name)' does not publish container port 8443 on the host")
        for key in ["CUSTODIAN_TLS_CERTIFICATE", "CUSTODIAN_TLS_KEY"] {
            guard let path = gateway.environment[key], !path.isEmpty else {
                Issue.record("service '\(gateway.name)' does not set \(key)")
                continue
            }
            #expect(
                gateway.mount(containing: path) != nil,
                "service '\(gateway.name)': \(key)=\(path) is not under any path the service mounts")
        }
    }

    @Test func postgresHasAHealthcheck() throws {
        let postgres = try #require(compose.service(named: "postgres"), "there is no 'postgres' service")
        #expect(postgres.hasHealthcheck, "service 'postgres' has no healthcheck, so nothing can wait for it to be ready")
    }

    // The gateway owns the one published port and setup runs once; every other service must accept `--scale`.
    @Test func servicesCanBeScaled() {
        for service in platformServices where service.command.first != "gateway" {
            #expect(
                service.containerName == nil,
                "service '\(service.name)' sets container_name '\(service.containerName ?? "")', so it cannot be scaled")
            for host in service.ports.compactMap(\.host) {
                Issue.record("service '\(service.name)' publishes host port \(host), so a second replica could not start")
            }
        }
    }

    // The gateway discovers replicas by listing the runtime directory, so every service must put its socket there.
    @Test func everyServiceSharesTheRuntimeDirectory() throws {
        let gateway = try #require(
            compose.projectServices.first { $0.command.first == "gateway" },
            "no service runs the gateway")
        let directory = try #require(
            gateway.environment["CUSTODIAN_RUNTIME_DIR"],
            "service '\(gateway.name)' does not set CUSTODIAN_RUNTIME_DIR")
        let volume = try #require(
            gateway.mounts.first { $0.target == directory }?.volume,
            "service '\(gateway.name)' mounts no named volume at CUSTODIAN_RUNTIME_DIR \(directory)")
        for service in platformServices {
            let own = service.environment["CUSTODIAN_RUNTIME_DIR"]
            #expect(
                own == directory,
                "service '\(service.name)' sets CUSTODIAN_RUNTIME_DIR to \(own ?? "nothing"), not \(directory) like the gateway")
            guard let mount = service.mounts.first(where: { $0.target == directory }) else {
                Issue.record("service '\(service.name)' mounts nothing at the runtime directory \(directory)")
                continue
            }
            #expect(
                mount.volume == volume,
                "service '\(service.name)' mounts \(mount.volume ?? "a non-volume") at \(directory), not the shared volume '\(volume)'")
            #expect(!mount.readOnly, "service '\(service.name)' mounts the runtime directory read-only and cannot create its socket")
        }
    }

    @Test func dockerfileShipsEveryExecutable() throws {
        try #require(!products.isEmpty, "found no `.executable(name: ...)` products in Package.swift")
        let staging = dockerfile.instructions.filter { $0.keyword == "RUN" && $0.arguments.contains("/staging") }
        try #require(!staging.isEmpty, "Deploy/Dockerfile has no RUN step that copies executables into /staging")
        let staged = Set(staging.flatMap { Dockerfile.words(in: $0.arguments) })
        for product in products {
            #expect(staged.contains(product), "Deploy/Dockerfile does not copy the executable '\(product)' into /staging")
        }
        let runtimeStage = dockerfile.finalStage
        #expect(
            runtimeStage.contains { $0.keyword == "COPY" && $0.arguments.contains("/staging") && $0.arguments.contains("/usr/local/bin") },
            "the runtime stage of Deploy/Dockerfile does not copy /staging into /usr/local/bin")
    }

    /// The image holds the multi-call executable under every product's name: its `main` must run each of them.
    @Test func theMultiCallExecutableRunsEveryProductByName() throws {
        let main = try repositoryFile("Services/multicall/Main/main.swift")
        for product in products where product != Self.commandLineProduct && product != Self.multiCallProduct {
            #expect(main.contains("case \"\(product)\":"), "Services/multicall/Main/main.swift does not run '\(product)' by its name")
        }
        #expect(main.contains("default: await Custodian.runAsRoot()"), "under any other name the multi-call executable is the command line")
    }

    @Test func runtimeImageInstallsSystemLibraries() {
        let installed = Set(
            dockerfile.finalStage
                .filter { $0.keyword == "RUN" && $0.arguments.contains("apt-get") }
                .flatMap { Dockerfile.words(in: $0.arguments) })
        for package in ["libsodium23", "libqrencode4", "libpng16-16", "libzbar0", "libturbojpeg0", "ca-certificates", "tzdata"] {
            #expect(installed.contains(package), "the runtime stage of Deploy/Dockerfile does not install \(package)")
        }
    }
}

// MARK: - Reading the files

/// The repository root: this file is `Tests/DeployTests/ComposeFileTests.swift`.
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()
    .deletingLastPathComponent()
    .deletingLastPathComponent()

func repositoryFile(_ path: String) throws -> String {
    try String(contentsOf: repositoryRoot.appendingPathComponent(path), encoding: .utf8)
}

/// Runs a command from the repository root with nothing on its standard input: its exit status and what it printed
/// (standard output and error together).
func runScript(_ arguments: [String]) async throws -> (status: Int32, output: String) {
    let run = try await CommandRunner.run("/usr/bin/env", arguments, directory: repositoryRoot, together: true)
    return (run.status, run.stdout)
}

/// Names of `.executable(name: "X", ...)` products, in declaration order.
func executableProducts(inManifest manifest: String) -> [String] {
    manifest.matches(of: #/\.executable\(\s*name:\s*"([^"]+)"/#).map { String($0.output.1) }
}

struct DeployFileError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

// MARK: - docker-compose.yml

struct ComposeMount: Sendable {
    /// The named volume, or nil for a bind mount, tmpfs or anonymous volume (none needs a declaration).
    var volume: String?
    var target: String
    var readOnly: Bool
    /// The folder of the volume that is mounted (long syntax `volume: {subpath: …}`), or nil for all of it.
    var subpath: String? = nil

    func contains(_ path: String) -> Bool {
        let directory = target.hasSuffix("/") ? target : target + "/"
        return path == target || path.hasPrefix(directory)
    }
}

struct ComposePort: Sendable {
    /// The published host port, or nil when Docker picks one (which does not stop scaling).
    var host: String?
    var container: String
}

struct ComposeService: Sendable {
    var name: String
    var image: String?
    var builds: Bool
    var command: [String]
    var environment: [String: String]
    var mounts: [ComposeMount]
    /// Service name to condition (`service_started` for the short list form).
    var dependencies: [String: String]
    var ports: [ComposePort]
    var containerName: String?
    var restart: String?
    var hasHealthcheck: Bool

    /// The mount a path lies in; the deepest one when mounts nest.
    func mount(containing path: String) -> ComposeMount? {
        mounts.filter { $0.contains(path) }.max { $0.target.count < $1.target.count }
    }
}

/// The parts of a compose file these tests look at, after YAML anchors and `<<:` merge keys are applied.
struct ComposeFile: Sendable {
    /// Sorted by name, so failures come out in a stable order.
    var services: [ComposeService]
    var volumes: Set<String>

    init(yaml: String) throws {
        let root = try mapping(try Yams.load(yaml: yaml), "docker-compose.yml")
        services = try mapping(root["services"], "services")
            .map { name, value in try ComposeService(name: name, mapping(value, "service '\(name)'")) }
            .sorted { $0.name < $1.name }
        if let declared = root["volumes"] {
            volumes = Set(try mapping(declared, "top-level volumes").keys)
        } else {
            volumes = []
        }
    }

    func service(named name: String) -> ComposeService? {
        services.first { $0.name == name }
    }

    /// Services built from this repository, or using the image such a service builds.
    var projectServices: [ComposeService] {
        let images = Set(services.filter(\.builds).compactMap(\.image))
        return services.filter { $0.builds || $0.image.map(images.contains) == true }
    }

    var setupService: ComposeService? {
        projectServices.first { $0.command.starts(with: [ComposeFileTests.commandLineProduct, "setup"]) }
    }
}

extension ComposeService {
    init(name: String, _ fields: [String: Any]) throws {
        let context = "service '\(name)'"
        self.name = name
        image = fields["image"].flatMap(scalar)
        builds = fields["build"] != nil
        containerName = fields["container_name"].flatMap(scalar)
        restart = fields["restart"].flatMap(scalar)
        if let healthcheck = fields["healthcheck"] {
            let disabled = (try? mapping(healthcheck, context))?["disable"].flatMap(scalar) == "true"
            hasHealthcheck = !disabled
        } else {
            hasHealthcheck = false
        }

        switch fields["command"] {
        case nil: command = []
        case let text as String: command = text.split(whereSeparator: \.isWhitespace).map(String.init)
        case let list as [Any]: command = list.compactMap(scalar)
        default: throw DeployFileError("\(context): command is neither a string nor a list")
        }

        switch fields["environment"] {
        case nil: environment = [:]
        case let list as [Any]:
            environment = Dictionary(
                list.compactMap(scalar).map { entry -> (String, String) in
                    let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
                }, uniquingKeysWith: { _, last in last })
        case let value:
            environment = try mapping(value, "\(context) environment").mapValues { scalar($0) ?? "" }
        }

        switch fields["depends_on"] {
        case nil: dependencies = [:]
        case let list as [Any]:
            dependencies = Dictionary(list.compactMap(scalar).map { ($0, "service_started") }, uniquingKeysWith: { first, _ in first })
        case let value:
            dependencies = try mapping(value, "\(context) depends_on").mapValues { condition in
                (try? mapping(condition, context))?["condition"].flatMap(scalar) ?? "service_started"
            }
        }

        mounts = try (fields["volumes"] as? [Any] ?? []).map { try ComposeMount($0, context) }
        ports = try (fields["ports"] as? [Any] ?? []).map { try ComposePort($0, context) }
    }
}

extension ComposeMount {
    init(_ value: Any, _ context: String) throws {
        if let text = value as? String {
            // Short syntax: `[source:]target[:mode]`, where a source that looks like a path is a bind mount.
            let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count > 1 else {
                self.init(volume: nil, target: text, readOnly: false)
                return
            }
            let source = parts[0]
            let isPath = source.hasPrefix("/") || source.hasPrefix(".") || source.hasPrefix("~")
            let options = parts.count > 2 ? parts[2].split(separator: ",") : []
            self.init(volume: isPath ? nil : source, target: parts[1], readOnly: options.contains("ro"))
        } else {
            let fields = try mapping(value, "\(context) volume")
            guard let target = fields["target"].flatMap(scalar) else {
                throw DeployFileError("\(context): a volume in long syntax has no target")
            }
            let type = fields["type"].flatMap(scalar) ?? "volume"
            let options = (fields["volume"] as? [String: Any]) ?? [:]
            self.init(
                volume: type == "volume" ? fields["source"].flatMap(scalar) : nil,
                target: target,
                readOnly: fields["read_only"].flatMap(scalar) == "true",
                subpath: options["subpath"].flatMap(scalar))
        }
    }
}

extension ComposePort {
    init(_ value: Any, _ context: String) throws {
        if value is [AnyHashable: Any] {
            let fields = try mapping(value, "\(context) port")
            guard let target = fields["target"].flatMap(scalar) else {
                throw DeployFileError("\(context): a port in long syntax has no target")
            }
            self.init(host: fields["published"].flatMap(scalar), container: target)
        } else if let text = scalar(value) {
            // Short syntax: `[[ip:]host:]container[/protocol]`; the last two fields are the ports.
            let ports = text.split(separator: "/").first.map { $0.split(separator: ":").map(String.init) } ?? []
            guard let container = ports.last else { throw DeployFileError("\(context): empty port '\(text)'") }
            self.init(host: ports.count > 1 ? ports[ports.count - 2] : nil, container: container)
        } else {
            throw DeployFileError("\(context): a port is neither a string nor a mapping")
        }
    }
}

/// Yams gives mappings as `[AnyHashable: Any]` with `String` keys.
private func mapping(_ value: Any?, _ context: String) throws -> [String: Any] {
    guard let dictionary = value as? [AnyHashable: Any] else {
        throw DeployFileError("\(context) is not a mapping")
    }
    return Dictionary(dictionary.map { (String(describing: $0.key.base), $0.value) }, uniquingKeysWith: { _, last in last })
}

/// A scalar as compose reads it: YAML 1.1 turns `8443` into an Int and `true` into a Bool, compose sees text.
private func scalar(_ value: Any) -> String? {
    switch value {
    case is [AnyHashable: Any], is [Any]: nil
    case is NSNull: nil
    case let text as String: text
    default: String(describing: value)
    }
}

// MARK: - Dockerfile

struct DockerInstruction: Sendable {
    var keyword: String
    var arguments: String
}

/// A Dockerfile as logical instructions: continuation lines joined, comments dropped.
struct Dockerfile: Sendable {
    var instructions: [DockerInstruction]

    init(text: String) {
        var instructions: [DockerInstruction] = []
        var pending = ""
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            // Docker drops comment lines even inside a continued instruction.
            if line.hasPrefix("#") { continue }
            if line.hasSuffix("\\") {
                pending += String(line.dropLast()) + " "
                continue
            }
            let logical = (pending + line).trimmingCharacters(in: .whitespaces)
            pending = ""
            guard !logical.isEmpty else { continue }
            let keyword = logical.prefix { !$0.isWhitespace }
            let arguments = logical.dropFirst(keyword.count).trimmingCharacters(in: .whitespaces)
            instructions.append(DockerInstruction(keyword: keyword.uppercased(), arguments: arguments))
        }
        self.instructions = instructions
    }

    /// The instructions after the last `FROM`: what the shipped image is made of.
    var finalStage: [DockerInstruction] {
        guard let last = instructions.lastIndex(where: { $0.keyword == "FROM" }) else { return instructions }
        return Array(instructions[instructions.index(after: last)...])
    }

    /// Shell words, split at anything that cannot be part of a package or executable name.
    static func words(in text: String) -> [String] {
        text.split { !($0.isLetter || $0.isNumber || "-_.+".contains($0)) }.map(String.init)
    }
}
