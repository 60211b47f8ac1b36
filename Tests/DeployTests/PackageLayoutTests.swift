import Foundation
import Testing

/// DESIGN.md: services depend only on Shared. A service that links another to share its input types drags in what
/// that one links (libqrencode in `auth`, once), and couples their releases; the types belong in `Shared/CustodianContracts`.
@Suite("Package layout")
struct PackageLayoutTests {
    struct Target {
        var name: String
        var path: String
        var dependencies: [String]
    }

    /// The manifest's targets with a path: their names, folders and target dependencies (products left out).
    static func targets() throws -> [Target] {
        let manifest = try repositoryFile("Package.swift")
        let pattern = try NSRegularExpression(
            pattern: #"name: "([A-Za-z]+)",\s*dependencies: \[(.*?)\],\s*path: "([^"]+)""#,
            options: [.dotMatchesLineSeparators])
        let text = manifest as NSString
        return pattern.matches(in: manifest, range: NSRange(location: 0, length: text.length)).map { match in
            let dependencies = text.substring(with: match.range(at: 2))
                .split(separator: "\n").map { $0.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? "" }
                .joined(separator: "\n")
                .components(separatedBy: ",")
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                .filter { $0.hasPrefix("\"") && $0.hasSuffix("\"") }
                .map { String($0.dropFirst().dropLast()) }
            return Target(name: text.substring(with: match.range(at: 1)), path: text.substring(with: match.range(at: 3)), dependencies: dependencies)
        }
    }

    /// Every target's folder, system libraries (no dependencies) included.
    static func folders() throws -> [String: String] {
        let manifest = try repositoryFile("Package.swift")
        let pattern = try NSRegularExpression(
            pattern: #"name: "([A-Za-z]+)",\s*(?:dependencies: \[.*?\],\s*)?path: "([^"]+)""#,
            options: [.dotMatchesLineSeparators])
        let text = manifest as NSString
        let pairs = pattern.matches(in: manifest, range: NSRange(location: 0, length: text.length)).map {
            (text.substring(with: $0.range(at: 1)), text.substring(with: $0.range(at: 2)))
        }
        return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }

    @Test func servicesDependOnlyOnSharedTargets() throws {
        let targets = try Self.targets()
        let folders = try Self.folders()
        // A service's own code: `Services/<service>/<Name>Service` (the gateway's `GatewayKit`), not its `Main`.
        let serviceLibraries = targets.filter {
            $0.path.hasPrefix("Services/") && !$0.path.hasSuffix("/Main") && !$0.path.hasPrefix("Services/custodian")
        }
        #expect(serviceLibraries.count >= 7, "found \(serviceLibraries.map(\.name))")
        for service in serviceLibraries {
            for dependency in service.dependencies {
                let folder = try #require(
                    folders[dependency], "\(service.name) depends on \(dependency), which the manifest does not define with a path")
                #expect(folder.hasPrefix("Shared/"), "\(service.name) depends on \(dependency) (\(folder)); services depend only on Shared")
            }
        }
    }

    /// A module is found in the folder named after it (`CustodianRPC` in `Shared/CustodianRPC`, `CustodianRPCTests` in
    /// `Tests/CustodianRPCTests`), and every folder under Shared/ and Tests/ is a module's. Executables are the exception:
    /// each lives in `Services/<executable>/Main`, beside the library that holds its service's code.
    @Test func everyTargetLivesInTheFolderNamedAfterIt() throws {
        let manifest = try repositoryFile("Package.swift")
        let executables = Set(manifest.matches(of: #/\.executableTarget\(\s*name: "([A-Za-z]+)"/#).map { String($0.output.1) })
        let folders = try Self.folders()
        #expect(executables.count >= 8 && folders.count >= 40, "found \(executables.sorted()) and \(folders.count) folders")
        for (name, path) in folders.sorted(by: { $0.key < $1.key }) {
            if executables.contains(name) {
                #expect(path == "Services/\(name)/Main", "the executable \(name) lives in \(path)")
            } else {
                #expect(path.split(separator: "/").last.map(String.init) == name, "\(name) lives in \(path)")
            }
        }
        let targetFolders = Set(folders.values)
        for parent in ["Shared", "Tests"] {
            let children = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent(parent).path)
            for child in children where !child.hasPrefix(".") {
                let isTargetFolder = targetFolders.contains("\(parent)/\(child)")
                #expect(isTargetFolder, "\(parent)/\(child) is no target's folder")
            }
        }
    }

    /// The command line links a service only to run its code against the database without the platform running, or to
    /// read its migrations.
    static let servicesTheCommandLineRuns: [String: String] = [
        "AuthService": "`custodian setup` and `up` apply auth's migrations and make the first admin token",
        "RoutesService": "`custodian admin create-consumer` makes an API consumer offline",
        // `custodian restore` reads each service's migrations (data, not code it runs) to refuse a newer backup.
        "DevicesService": "`custodian restore` refuses a backup whose devices schema is newer than this build's",
        "VaultService": "`custodian restore` refuses a backup whose vault schema is newer than this build's",
        "StatisticsService": "`custodian restore` refuses a backup whose statistics schema is newer than this build's",
        "LinksService": "`custodian restore` refuses a backup whose links schema is newer than this build's",
    ]

    @Test func theCommandLineLinksAServiceOnlyToRunItsCode() throws {
        let targets = try Self.targets()
        let folders = try Self.folders()
        // The commands are in CustodianCommands; the `custodian` executable links nothing else (see below).
        let commands = try #require(targets.first { $0.name == "CustodianCommands" })
        let services = commands.dependencies.filter { folders[$0]?.hasPrefix("Services/") == true }
        for dependency in services {
            #expect(Self.servicesTheCommandLineRuns[dependency] != nil, "CustodianCommands links \(dependency) without a reason listed here")
        }
        for listed in Self.servicesTheCommandLineRuns.keys {
            #expect(services.contains(listed), "CustodianCommands no longer links \(listed): take it off the list")
        }
    }

    /// A target as the manifest declares it.
    struct Declaration {
        /// `target`, `systemLibrary`, `executableTarget` or `testTarget`.
        var kind: String
        var name: String
        var path: String
    }

    /// Every target of the manifest, in order: the text from one `.target(` (or `.systemLibrary(`, …) to the next
    /// holds the target's own `name:` first and its `path:`.
    static func declarations() throws -> [Declaration] {
        let manifest = try repositoryFile("Package.swift")
        let starts = manifest.matches(of: #/\.(target|systemLibrary|executableTarget|testTarget)\(/#)
        return try starts.indices.map { index in
            let end = index + 1 < starts.count ? starts[index + 1].range.lowerBound : manifest.endIndex
            let text = manifest[starts[index].range.upperBound..<end]
            guard let name = text.firstMatch(of: #/name: "([^"]+)"/#), let path = text.firstMatch(of: #/path: "([^"]+)"/#) else {
                throw DeployFileError("a target without a name or a path in Package.swift: \(text.prefix(80))")
            }
            return Declaration(kind: String(starts[index].output.1), name: String(name.output.1), path: String(path.output.1))
        }
    }

    /// An executable's folder is `Services/<executable>/Main`, beside the library that holds its code, and holds only its
    /// `main.swift`: code in an executable target cannot be unit-tested.
    @Test func executablesAreAMainFileInServicesExecutableMain() throws {
        let executables = try Self.declarations().filter { $0.kind == "executableTarget" }
        #expect(executables.count >= 8, "found \(executables.map(\.name))")
        for executable in executables {
            #expect(executable.path == "Services/\(executable.name)/Main", "\(executable.name) is in \(executable.path)")
            let files = try FileManager.default.subpathsOfDirectory(atPath: repositoryRoot.appendingPathComponent(executable.path).path)
            #expect(files == ["main.swift"], "the \(executable.name) executable target holds \(files); its code belongs in the library beside it")
        }
        #expect(executables.contains { $0.name == "custodian" })
        // The command line links only its library.
        let linked = try #require(try Self.targets().first { $0.name == "custodian" }).dependencies
        #expect(linked == ["CustodianCommands"], "the custodian executable links \(linked)")
    }
}
