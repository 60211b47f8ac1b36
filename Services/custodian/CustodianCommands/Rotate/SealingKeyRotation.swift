import ArgumentParser
import CustodianContracts
import CustodianSecurity
import Foundation

/// `custodian rotate sealing-key`: a new sealing key version, the services that seal restarted onto it one replica at a
/// time, every sealed value re-sealed under it; later the old version retired (docs/operations.md, "Rotating the
/// sealing key").
struct SealingKeyRotation: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sealing-key",
        abstract: "Adds a sealing key version and re-seals every sealed value under it, or retires an old version.",
        discussion: """
            Against a running `custodian up` (--data-dir): with no option, adds a key version to <data-dir>/secrets/sealing-key, \
            replaces the replicas of auth, devices, links, routes and vault one at a time (as `custodian restart` does), \
            re-seals every sealed value under the new key and prints how many values are under each version. \
            --retire VERSION refuses while any value is still sealed under VERSION, else removes it from the file and \
            replaces the replicas again. --status only prints the counts; --reseal runs the re-seal pass again, after a \
            rotation that was interrupted.

            With --key-file FILE (compose, Kubernetes): only adds a version to that file, or removes one; handing the file to \
            the services, restarting them, re-sealing (`<service> --sealing reseal` in each) and checking that nothing is \
            left under a version before retiring it are yours.
            """)

    @Option(help: "The data directory of the running `custodian up` (default: .custodian).") var dataDir: String?
    @Option(help: ArgumentHelp("Change only this key file, with no platform to restart or re-seal (compose, Kubernetes).", valueName: "file"))
    var keyFile: String?
    @Option(help: ArgumentHelp("Remove this key version, once no value is sealed under it any more.", valueName: "version"))
    var retire: String?
    @Flag(help: "Only print how many sealed values are under each key version.") var status = false
    @Flag(help: "Only re-seal every value under the newest key (after an interrupted rotation).") var reseal = false

    func run() async throws {
        let retired = try retiredVersion()
        guard [retired != nil, status, reseal].filter({ $0 }).count <= 1 else {
            throw ValidationError("--retire, --status and --reseal go one at a time")
        }
        if let keyFile {
            guard dataDir == nil else {
                throw ValidationError("--key-file changes a file only and --data-dir a running `custodian up`: give one of them")
            }
            guard !status, !reseal else {
                throw ValidationError(
                    "--status and --reseal ask a running `custodian up` (--data-dir); elsewhere run `<service> --sealing report` or `--sealing reseal` in each sealing service's container"
                )
            }
            try change(keyFile, retiring: retired)
            return
        }
        let platform = try SealingPlatform(dataDirectory: dataDir ?? ".custodian")
        let keyring = try SealingKeyFile.read(platform.keyFile)
        if status {
            let values = try await platform.report()
            print(values.flatMap(\.summary).joined(separator: "\n"))
            for stale in values where stale.newestVersion != Int(keyring.newest) {
                TerminalOutput.warn(
                    "\(stale.service) seals under key version \(stale.newestVersion), not \(keyring.newest), the newest in \(platform.keyFile): `custodian restart \(stale.service)`"
                )
            }
        } else if reseal {
            try await platform.resealAll(newest: keyring.newest)
        } else if let retired {
            try await retire(retired, keyring: keyring, on: platform)
        } else {
            try await rotate(keyring, on: platform)
        }
    }

    private func retiredVersion() throws -> UInt32? {
        guard let retire else { return nil }
        guard let version = UInt32(retire), version > 0 else {
            throw ValidationError("--retire needs a key version, a whole number such as 1, not '\(retire)'")
        }
        return version
    }

    /// With `--key-file`: the file only.
    private func change(_ path: String, retiring version: UInt32?) throws {
        let keyring = try SealingKeyFile.read(path)
        guard let version else {
            let added = keyring.adding()
            try SealingKeyFile.write(added, to: path)
            print("added sealing key version \(added.newest) to \(path) (versions \(Self.list(added.versions)))")
            print(
                "next: give the file to \(SealingPlatform.services.joined(separator: ", ")), restart them one replica at a time, then run `<service> --sealing reseal` in each"
            )
            return
        }
        let kept = try retiring(version, from: keyring)
        try SealingKeyFile.write(kept, to: path)
        print("retired sealing key version \(version) from \(path) (versions \(Self.list(kept.versions)) left)")
        TerminalOutput.warn(
            "nothing here checked the database: `<service> --sealing report` in each sealing service must show no value under version \(version) before the services get this file"
        )
    }

    private func rotate(_ keyring: SealingKeyring, on platform: SealingPlatform) async throws {
        // Every service answers, with the file's newest key, before anything changes.
        for values in try await platform.report() where values.newestVersion != Int(keyring.newest) {
            throw CLIError(
                "\(values.service) seals under key version \(values.newestVersion), not \(keyring.newest), the newest in \(platform.keyFile): an earlier rotation did not finish; run `custodian restart \(values.service)` and `custodian rotate sealing-key --reseal` first"
            )
        }
        let added = keyring.adding()
        try SealingKeyFile.write(added, to: platform.keyFile)
        print("added sealing key version \(added.newest) to \(platform.keyFile)")
        do {
            try await platform.restartAll()
        } catch {
            throw CLIError("\(error); once every service runs again, finish with `custodian rotate sealing-key --reseal\(platform.option)`")
        }
        try await platform.resealAll(newest: added.newest)
        print(
            "every sealed value is under key version \(added.newest); retire the old key once no backup you keep needs it: `custodian rotate sealing-key --retire \(keyring.newest)\(platform.option)`"
        )
    }

    private func retire(_ version: UInt32, keyring: SealingKeyring, on platform: SealingPlatform) async throws {
        let kept = try retiring(version, from: keyring)
        let values = try await platform.report()
        for stale in values where stale.newestVersion != Int(keyring.newest) {
            throw CLIError(
                "\(stale.service) seals under key version \(stale.newestVersion), not \(keyring.newest), the newest in \(platform.keyFile): finish the rotation first (`custodian restart \(stale.service)`, then `custodian rotate sealing-key --reseal`)"
            )
        }
        let left = values.flatMap { service in service.columns.map { ("\($0.table).\($0.column)", $0.values(under: Int(version))) } }
            .filter { $0.1 > 0 }
        guard left.isEmpty else {
            let where_ = left.map { "\($0.0): \($0.1)" }.joined(separator: ", ")
            throw CLIError(
                "values are still sealed under key version \(version) (\(where_)): re-seal them first with `custodian rotate sealing-key --reseal\(platform.option)`; nothing was changed"
            )
        }
        try SealingKeyFile.write(kept, to: platform.keyFile)
        print("retired sealing key version \(version) from \(platform.keyFile) (versions \(Self.list(kept.versions)) left)")
        try await platform.restartAll()
        print("the sealing services no longer hold key version \(version)")
    }

    private func retiring(_ version: UInt32, from keyring: SealingKeyring) throws -> SealingKeyring {
        do {
            return try keyring.retiring(version)
        } catch {
            throw CLIError("cannot retire sealing key version \(version): \(error); nothing was changed")
        }
    }

    static func list(_ versions: [UInt32]) -> String { versions.map(String.init).joined(separator: ", ") }
}
