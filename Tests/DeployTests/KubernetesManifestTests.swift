import CustodianRuntime
import Foundation
import Testing
import Yams

// Static checks of the Kubernetes manifests in Deploy/k8s against Package.swift and `Platform`: no cluster is needed,
// so a renamed product, a probe of the wrong executable, a secret mounted into the wrong pod or a caller without the
// address of a service it calls fails here and not in a cluster. `Deploy/dev/validate-manifests.sh` checks the same
// files against Kubernetes' own schemas (the last test runs it).
@Suite("Kubernetes manifests")
struct KubernetesManifestTests {
    static let folder = "Deploy/k8s"
    static let validator = "Deploy/dev/validate-manifests.sh"

    let manifests: KubernetesManifests
    let products: [String]

    init() throws {
        manifests = try KubernetesManifests(folder: Self.folder)
        products = executableProducts(inManifest: try repositoryFile("Package.swift"))
    }

    /// The executable a Deployment runs (its first container's command), and that container.
    func runs(_ deployment: KubernetesDeployment) -> (executable: String, container: KubernetesContainer)? {
        guard let container = deployment.containers.first, let executable = container.command.first else { return nil }
        return (executable, container)
    }

    /// The Deployments that run a platform process (the gateway or a service), by executable.
    var processes: [(executable: String, deployment: KubernetesDeployment, container: KubernetesContainer)] {
        manifests.deployments.compactMap { deployment in
            guard let run = runs(deployment), run.executable != ComposeFileTests.commandLineProduct,
                products.contains(run.executable)
            else { return nil }
            return (run.executable, deployment, run.container)
        }
    }

    @Test func everyExecutableProductHasADeployment() throws {
        try #require(!products.isEmpty, "found no `.executable(name: ...)` products in Package.swift")
        try #require(!manifests.deployments.isEmpty, "found no Deployment in the files \(Self.folder)/kustomization.yaml lists")
        for deployment in manifests.deployments {
            guard let executable = runs(deployment)?.executable else {
                Issue.record(
                    "Deployment '\(deployment.name)' (\(deployment.file)) has no container with a command, and the image has no default service")
                continue
            }
            #expect(
                products.contains(executable),
                "Deployment '\(deployment.name)' runs '\(executable)', which is not an executable product in Package.swift")
        }
        let running = Set(processes.map { $0.executable })
        for product in products where product != ComposeFileTests.commandLineProduct && product != ComposeFileTests.multiCallProduct {
            #expect(running.contains(product), "executable product '\(product)' is not run by any Deployment in \(Self.folder)")
        }
    }

    /// `<service> --probe live|ready` asks the replica in its own container; another executable would ask another service.
    @Test func serviceDeploymentsProbeTheirOwnReplica() {
        for (executable, deployment, container) in processes where Platform.services.contains(executable) {
            #expect(
                container.livenessExec == [executable, "--probe", "live"],
                "Deployment '\(deployment.name)': the liveness probe runs \(String(describing: container.livenessExec)), not [\(executable), --probe, live]"
            )
            #expect(
                container.readinessExec == [executable, "--probe", "ready"],
                "Deployment '\(deployment.name)': the readiness probe runs \(String(describing: container.readinessExec)), not [\(executable), --probe, ready]"
            )
        }
    }

    /// /readyz is 503 while any one service is down: as a probe it would take every gateway out of rotation at once.
    @Test func gatewayProbesHealthzOverHTTPS() throws {
        let gateway = try #require(processes.first { $0.executable == "gateway" }, "no Deployment runs the gateway")
        for (kind, probe) in [("liveness", gateway.container.livenessHTTP), ("readiness", gateway.container.readinessHTTP)] {
            #expect(probe?.path == "/healthz", "the gateway's \(kind) probe asks \(probe?.path ?? "no HTTP path"), not /healthz")
            #expect(probe?.scheme == "HTTPS", "the gateway's \(kind) probe uses \(probe?.scheme ?? "no") scheme, not HTTPS")
        }
    }

    @Test func everyContainerHasRequestsAndAMemoryLimit() {
        for deployment in manifests.deployments {
            for container in deployment.containers {
                let context = "Deployment '\(deployment.name)', container '\(container.name)'"
                #expect(container.requests["cpu"] != nil, "\(context) requests no CPU")
                #expect(container.requests["memory"] != nil, "\(context) requests no memory")
                #expect(container.limits["memory"] != nil, "\(context) has no memory limit")
            }
        }
    }

    /// The setup Job publishes `custodian setup`'s `<process>/` folder as the Secret `custodian-<process>`: a pod mounts
    /// that one, read-only, and is given a secret's variable only when its process reads that secret.
    @Test func eachDeploymentMountsOnlyItsOwnSecret() {
        for (executable, deployment, container) in processes {
            let secrets = deployment.volumes.filter { $0.secretName != nil }
            #expect(
                secrets.map(\.secretName) == ["custodian-\(executable)"],
                "Deployment '\(deployment.name)' mounts the Secrets \(secrets.compactMap(\.secretName)), not only custodian-\(executable)")
            for volume in secrets {
                for mount in deployment.containers.flatMap(\.mounts) where mount.volume == volume.name {
                    #expect(mount.readOnly, "Deployment '\(deployment.name)' mounts its Secret at \(mount.path) writable")
                }
            }
            let expected: [(String, Bool)] = [
                ("CUSTODIAN_SEALING_KEY_FILE", Platform.sealingKeyReaders.contains(executable)),
                ("CUSTODIAN_LEMON_KEYS_FILE", Platform.lemonKeyReaders.contains(executable)),
                ("CUSTODIAN_DATABASE_URL_FILE", Platform.services.contains(executable)),
            ]
            for (key, reads) in expected {
                #expect(
                    (container.environment[key] != nil) == reads,
                    "Deployment '\(deployment.name)': \(executable) \(reads ? "reads" : "does not read") \(key) but the manifest \(reads ? "does not set" : "sets") it"
                )
            }
        }
    }

    /// Every `_FILE` path (and the gateway's certificate and key) is a file the pod mounts: under a mount, and, when
    /// that mount is a Secret with `items`, one of the paths the items map keys to.
    @Test func filePathsPointIntoMountedFiles() {
        for deployment in manifests.deployments {
            for container in deployment.containers {
                let paths = container.environment.filter { key, _ in
                    key.hasSuffix("_FILE") || key == "CUSTODIAN_TLS_CERTIFICATE" || key == "CUSTODIAN_TLS_KEY"
                }
                for (key, path) in paths.sorted(by: { $0.key < $1.key }) {
                    let context = "Deployment '\(deployment.name)': \(key)=\(path)"
                    guard let mount = container.mount(containing: path) else {
                        Issue.record("\(context) is not under any path the container mounts")
                        continue
                    }
                    guard let items = deployment.volumes.first(where: { $0.name == mount.volume })?.itemPaths else { continue }
                    let relative = String(path.dropFirst(mount.path.count).drop { $0 == "/" })
                    #expect(
                        items.contains(relative),
                        "\(context): the volume '\(mount.volume)' mounted at \(mount.path) maps no key to \(relative) (it has \(items.sorted()))")
                }
            }
        }
    }

    /// `CUSTODIAN_<X>_ENDPOINTS=dns://<x>-rpc.<namespace>.svc.cluster.local:<port>`: a headless Service of that name
    /// exists, selects x's pods, offers only ready ones, and the port is the one x listens on (`CUSTODIAN_LISTEN`).
    @Test func endpointsNameHeadlessServicesOnTheListeningPort() throws {
        let pattern = #/^CUSTODIAN_([A-Z0-9]+)_ENDPOINTS$/#
        var checked = 0
        for deployment in manifests.deployments {
            for container in deployment.containers {
                for (key, value) in container.environment.sorted(by: { $0.key < $1.key }) {
                    guard let match = key.wholeMatch(of: pattern) else { continue }
                    checked += 1
                    let callee = match.output.1.lowercased()
                    let context = "Deployment '\(deployment.name)': \(key)=\(value)"
                    guard let address = value.wholeMatch(of: #/dns://([^:/]+):([0-9]+)/#),
                        let port = Int(address.output.2)
                    else {
                        Issue.record("\(context) is not one dns://name:port")
                        continue
                    }
                    let serviceName = String(address.output.1.prefix { $0 != "." })
                    #expect(serviceName == "\(callee)-rpc", "\(context) names \(serviceName), not \(callee)-rpc")
                    guard let service = manifests.services.first(where: { $0.name == serviceName }) else {
                        Issue.record("\(context): there is no Service '\(serviceName)'")
                        continue
                    }
                    #expect(service.clusterIP == "None", "Service '\(service.name)' is not headless (clusterIP \(service.clusterIP ?? "unset"))")
                    #expect(!service.publishNotReadyAddresses, "Service '\(service.name)' publishes replicas that are not ready")
                    #expect(service.ports.contains(port), "\(context): Service '\(service.name)' has no port \(port) (it has \(service.ports))")
                    guard let target = processes.first(where: { $0.executable == callee }) else {
                        Issue.record("\(context): no Deployment runs \(callee)")
                        continue
                    }
                    #expect(
                        service.selector.allSatisfy { target.deployment.podLabels[$0.key] == $0.value } && !service.selector.isEmpty,
                        "Service '\(service.name)' selects \(service.selector), which are not the labels of Deployment '\(target.deployment.name)'s pods"
                    )
                    let listen = target.container.environment["CUSTODIAN_LISTEN"] ?? ""
                    let listenPort = listen.wholeMatch(of: #/tcp://[^:]+:([0-9]+)/#).flatMap { Int($0.output.1) }
                    #expect(
                        listenPort == port,
                        "\(context): \(callee) listens on \(listen.isEmpty ? "no CUSTODIAN_LISTEN" : listen), not on port \(port)")
                }
            }
        }
        #expect(checked > 0, "no Deployment sets any CUSTODIAN_<SERVICE>_ENDPOINTS")
    }

    /// A process calls service S exactly when `Platform.callers[S]` names it (over mutual TLS S refuses anyone else):
    /// it is given the ENDPOINTS of those services and of no other.
    @Test func eachProcessFindsExactlyTheServicesItCalls() {
        let pattern = #/^CUSTODIAN_([A-Z0-9]+)_ENDPOINTS$/#
        for (executable, deployment, container) in processes {
            let expected = Set(Platform.callers.filter { $0.value.contains(executable) }.keys)
            let given = Set(container.environment.keys.compactMap { $0.wholeMatch(of: pattern).map { $0.output.1.lowercased() } })
            #expect(
                given == expected,
                "Deployment '\(deployment.name)': \(executable) calls \(expected.sorted()) (Platform.callers) but is given the ENDPOINTS of \(given.sorted())"
            )
        }
    }

    @Test func gatewayAndDevicesScaleAutomatically() {
        for executable in ["gateway", "devices"] {
            let deployments = processes.filter { $0.executable == executable }.map { $0.deployment.name }
            let autoscalers = manifests.autoscalers.filter { $0.targetKind == "Deployment" && deployments.contains($0.targetName) }
            #expect(
                !autoscalers.isEmpty,
                "no HorizontalPodAutoscaler targets a Deployment that runs \(executable) (\(deployments))")
        }
        for autoscaler in manifests.autoscalers {
            #expect(
                autoscaler.targetKind == "Deployment" && manifests.deployments.contains { $0.name == autoscaler.targetName },
                "HorizontalPodAutoscaler '\(autoscaler.name)' targets \(autoscaler.targetKind) '\(autoscaler.targetName)', which is not a Deployment here"
            )
        }
    }

    /// Tracing is set for a whole cluster at once, by the operator's ConfigMap `custodian-tracing`
    /// (examples/tracing.yaml): every process reads it, and starts without it.
    @Test func everyContainerReadsTheOptionalTracingConfigMap() {
        for deployment in manifests.deployments {
            for container in deployment.containers {
                let reference = container.configMaps.first { $0.name == "custodian-tracing" }
                #expect(
                    reference?.optional == true,
                    "Deployment '\(deployment.name)', container '\(container.name)': \(reference == nil ? "no envFrom reads" : "envFrom requires") the ConfigMap custodian-tracing"
                )
            }
        }
    }

    /// The example sets only the tracing variables the processes and compose know, in the platform's namespace.
    @Test func theTracingExampleSetsTheVariablesTheProcessesRead() throws {
        let file = "\(Self.folder)/examples/tracing.yaml"
        let example = try #require(try Yams.load(yaml: repositoryFile(file)) as? [String: Any], "\(file) is not one mapping")
        let metadata = example["metadata"] as? [String: Any] ?? [:]
        #expect(example["kind"] as? String == "ConfigMap")
        #expect(metadata["name"] as? String == "custodian-tracing")
        #expect(metadata["namespace"] as? String == "custodian")
        let data = example["data"] as? [String: Any] ?? [:]
        #expect(Set(data.keys).isSubset(of: ComposeFileTests.tracingVariables), "\(file) sets \(data.keys.sorted())")
        #expect((data["OTEL_EXPORTER_OTLP_ENDPOINT"] as? String)?.hasPrefix("http") == true, "\(file) names no collector")
    }

    /// Kubernetes' own schemas (kubernetes-validate, installed into a virtual environment on first use).
    @Test func validatorAcceptsTheManifests() async throws {
        let (status, text) = try await runScript(["bash", Self.validator])
        #expect(status == 0, "\(Self.validator) exited with \(status):\n\(text)")
    }
}

// MARK: - Reading the manifests

struct KubernetesMount: Sendable {
    var volume: String
    var path: String
    var readOnly: Bool

    func contains(_ file: String) -> Bool {
        let directory = path.hasSuffix("/") ? path : path + "/"
        return file == path || file.hasPrefix(directory)
    }
}

struct KubernetesHTTPProbe: Sendable {
    var path: String?
    var scheme: String?
}

struct KubernetesContainer: Sendable {
    var name: String
    var command: [String]
    /// Literal values; a variable set `valueFrom` a field or Secret has an empty value.
    var environment: [String: String]
    var mounts: [KubernetesMount]
    var requests: [String: String]
    var limits: [String: String]
    var livenessExec: [String]?
    var readinessExec: [String]?
    var livenessHTTP: KubernetesHTTPProbe?
    var readinessHTTP: KubernetesHTTPProbe?
    /// The ConfigMaps `envFrom` reads every key of as a variable.
    var configMaps: [(name: String, optional: Bool)]

    /// The mount a path lies in; the deepest one when mounts nest.
    func mount(containing path: String) -> KubernetesMount? {
        mounts.filter { $0.contains(path) }.max { $0.path.count < $1.path.count }
    }
}

struct KubernetesVolume: Sendable {
    var name: String
    var secretName: String?
    /// The paths a Secret's or ConfigMap's `items` map keys to, or nil when it mounts every key.
    var itemPaths: [String]?
}

struct KubernetesDeployment: Sendable {
    var file: String
    var name: String
    var podLabels: [String: String]
    var containers: [KubernetesContainer]
    var volumes: [KubernetesVolume]
}

struct KubernetesService: Sendable {
    var name: String
    var clusterIP: String?
    var publishNotReadyAddresses: Bool
    var selector: [String: String]
    var ports: [Int]
}

struct KubernetesAutoscaler: Sendable {
    var name: String
    var targetKind: String
    var targetName: String
}

/// The objects of the files `kustomization.yaml` lists (what `kubectl apply -k` applies), parts these tests look at.
struct KubernetesManifests: Sendable {
    var deployments: [KubernetesDeployment] = []
    var services: [KubernetesService] = []
    var autoscalers: [KubernetesAutoscaler] = []

    init(folder: String) throws {
        let kustomization = try kubeMapping(try Yams.load(yaml: repositoryFile("\(folder)/kustomization.yaml")), "\(folder)/kustomization.yaml")
        let files = try kubeList(kustomization["resources"], "\(folder)/kustomization.yaml resources").compactMap(kubeScalar)
        for file in files {
            var documents = try Yams.load_all(yaml: repositoryFile("\(folder)/\(file)"))
            while let document = documents.next() {
                if document is NSNull { continue }
                try add(try kubeMapping(document, file), file: file)
            }
            if let error = documents.error { throw DeployFileError("\(folder)/\(file): \(error)") }
        }
    }

    private mutating func add(_ object: [String: Any], file: String) throws {
        let kind = object["kind"].flatMap(kubeScalar) ?? ""
        let metadata = try kubeMapping(object["metadata"], "\(file): an object's metadata")
        guard let name = metadata["name"].flatMap(kubeScalar) else { throw DeployFileError("\(file): a \(kind) has no name") }
        let context = "\(file): \(kind) '\(name)'"
        let spec = try kubeMapping(object["spec"] ?? [String: Any](), "\(context) spec")
        switch kind {
        case "Deployment":
            let template = try kubeMapping(spec["template"], "\(context) spec.template")
            let pod = try kubeMapping(template["spec"], "\(context) spec.template.spec")
            let labels = try kubeMapping(kubeMapping(template["metadata"], "\(context) template metadata")["labels"], "\(context) pod labels")
            deployments.append(
                KubernetesDeployment(
                    file: file, name: name,
                    podLabels: labels.compactMapValues(kubeScalar),
                    containers: try kubeList(pod["containers"], "\(context) containers").map {
                        try KubernetesContainer(kubeMapping($0, context), context)
                    },
                    volumes: try kubeList(pod["volumes"] ?? [Any](), "\(context) volumes").map {
                        try KubernetesVolume(kubeMapping($0, context), context)
                    }))
        case "Service":
            services.append(
                KubernetesService(
                    name: name,
                    clusterIP: spec["clusterIP"].flatMap(kubeScalar),
                    publishNotReadyAddresses: spec["publishNotReadyAddresses"].flatMap(kubeScalar) == "true",
                    selector: try kubeMapping(spec["selector"] ?? [String: Any](), "\(context) selector").compactMapValues(kubeScalar),
                    ports: try kubeList(spec["ports"] ?? [Any](), "\(context) ports").compactMap { port in
                        try kubeMapping(port, "\(context) port")["port"].flatMap(kubeScalar).flatMap { Int($0) }
                    }))
        case "HorizontalPodAutoscaler":
            let target = try kubeMapping(spec["scaleTargetRef"], "\(context) scaleTargetRef")
            autoscalers.append(
                KubernetesAutoscaler(
                    name: name, targetKind: target["kind"].flatMap(kubeScalar) ?? "", targetName: target["name"].flatMap(kubeScalar) ?? ""))
        default:
            break
        }
    }
}

extension KubernetesContainer {
    init(_ fields: [String: Any], _ context: String) throws {
        let name = fields["name"].flatMap(kubeScalar) ?? ""
        let context = "\(context) container '\(name)'"
        self.name = name
        command = try kubeList(fields["command"] ?? [Any](), "\(context) command").compactMap(kubeScalar)
        var environment: [String: String] = [:]
        for entry in try kubeList(fields["env"] ?? [Any](), "\(context) env") {
            let variable = try kubeMapping(entry, "\(context) env")
            guard let key = variable["name"].flatMap(kubeScalar) else { throw DeployFileError("\(context): a variable has no name") }
            environment[key] = variable["value"].flatMap(kubeScalar) ?? ""
        }
        self.environment = environment
        configMaps = try kubeList(fields["envFrom"] ?? [Any](), "\(context) envFrom").compactMap { entry in
            guard let reference = try kubeMapping(entry, "\(context) envFrom")["configMapRef"] else { return nil }
            let fields = try kubeMapping(reference, "\(context) envFrom configMapRef")
            return (fields["name"].flatMap(kubeScalar) ?? "", fields["optional"].flatMap(kubeScalar) == "true")
        }
        mounts = try kubeList(fields["volumeMounts"] ?? [Any](), "\(context) volumeMounts").map { entry in
            let mount = try kubeMapping(entry, "\(context) volumeMount")
            guard let volume = mount["name"].flatMap(kubeScalar), let path = mount["mountPath"].flatMap(kubeScalar) else {
                throw DeployFileError("\(context): a volumeMount has no name or mountPath")
            }
            return KubernetesMount(volume: volume, path: path, readOnly: mount["readOnly"].flatMap(kubeScalar) == "true")
        }
        let resources = try kubeMapping(fields["resources"] ?? [String: Any](), "\(context) resources")
        requests = try kubeMapping(resources["requests"] ?? [String: Any](), "\(context) requests").compactMapValues(kubeScalar)
        limits = try kubeMapping(resources["limits"] ?? [String: Any](), "\(context) limits").compactMapValues(kubeScalar)

        func probe(_ key: String) throws -> (exec: [String]?, http: KubernetesHTTPProbe?) {
            guard let value = fields[key] else { return (nil, nil) }
            let settings = try kubeMapping(value, "\(context) \(key)")
            let exec = try settings["exec"].map {
                try kubeList(kubeMapping($0, "\(context) \(key).exec")["command"], "\(context) \(key).exec.command").compactMap(kubeScalar)
            }
            let http = try settings["httpGet"].map { value in
                let get = try kubeMapping(value, "\(context) \(key).httpGet")
                return KubernetesHTTPProbe(path: get["path"].flatMap(kubeScalar), scheme: get["scheme"].flatMap(kubeScalar) ?? "HTTP")
            }
            return (exec, http)
        }
        let liveness = try probe("livenessProbe")
        livenessExec = liveness.exec
        livenessHTTP = liveness.http
        let readiness = try probe("readinessProbe")
        readinessExec = readiness.exec
        readinessHTTP = readiness.http
    }
}

extension KubernetesVolume {
    init(_ fields: [String: Any], _ context: String) throws {
        guard let name = fields["name"].flatMap(kubeScalar) else { throw DeployFileError("\(context): a volume has no name") }
        self.name = name
        let secret = try fields["secret"].map { try kubeMapping($0, "\(context) volume '\(name)' secret") }
        let configMap = try fields["configMap"].map { try kubeMapping($0, "\(context) volume '\(name)' configMap") }
        secretName = secret?["secretName"].flatMap(kubeScalar)
        itemPaths = try (secret ?? configMap)?["items"].map { items in
            try kubeList(items, "\(context) volume '\(name)' items").compactMap {
                try kubeMapping($0, "\(context) volume '\(name)' item")["path"].flatMap(kubeScalar)
            }
        }
    }
}

/// Yams gives mappings as `[AnyHashable: Any]` with `String` keys.
private func kubeMapping(_ value: Any?, _ context: String) throws -> [String: Any] {
    guard let dictionary = value as? [AnyHashable: Any] else {
        throw DeployFileError("\(context) is not a mapping")
    }
    return Dictionary(dictionary.map { (String(describing: $0.key.base), $0.value) }, uniquingKeysWith: { _, last in last })
}

private func kubeList(_ value: Any?, _ context: String) throws -> [Any] {
    guard let list = value as? [Any] else { throw DeployFileError("\(context) is not a list") }
    return list
}

/// A scalar as text: Yams turns `7000` into an Int and `true` into a Bool.
private func kubeScalar(_ value: Any) -> String? {
    switch value {
    case is [AnyHashable: Any], is [Any]: nil
    case is NSNull: nil
    case let text as String: text
    default: String(describing: value)
    }
}
