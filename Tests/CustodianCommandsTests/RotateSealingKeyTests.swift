import CustodianSecurity
import Foundation
import Testing

@testable import CustodianCommands

/// `custodian rotate sealing-key`: its help, its changes to a key file with `--key-file`, and what it refuses before it
/// changes anything. (On a running platform: Tests/IntegrationTests/SealingKeyRotationTests.swift.)
@Suite("rotate sealing-key")
struct RotateSealingKeyTests {
    /// A key file as `custodian up` and `custodian setup` make it: one bare key, mode 0600.
    func withKeyFile(_ text: String = SealingKeyring.generateText(), _ body: (String) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            let path = folder + "/sealing-key"
            try Files.write(text, to: path)
            try await body(path)
        }
    }

    func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test func helpSaysWhatEachOptionDoes() {
        let help = Custodian.helpMessage(for: SealingKeyRotation.self)
        for text in ["--data-dir", "--key-file <file>", "--retire <version>", "--status", "--reseal", "re-seals every sealed value"] {
            #expect(help.contains(text), "\(text) is not in:\n\(help)")
        }
        #expect(Custodian.helpMessage(for: Rotate.self).contains("sealing-key"))
    }

    @Test func aVersionIsAddedToAKeyFileAndTheOldKeyStaysVersionOne() async throws {
        try await withKeyFile { path in
            let bare = try read(path)
            #expect(await failure(["rotate", "sealing-key", "--key-file", path]) == nil)
            let rotated = try SealingKeyring(text: try read(path))
            #expect(rotated.versions == [1, 2] && rotated.newest == 2)
            #expect(try read(path).hasPrefix("1:\(bare)\n2:"))
            #expect(try mode(path) == 0o600)
            #expect(!FileManager.default.fileExists(atPath: path + ".new"))
            // What the old key sealed opens with the new file.
            let sealed = try Sealer(keyringText: bare).seal("secret", context: "c")
            #expect(try Sealer(keyring: rotated).open(sealed, context: "c") == "secret")

            #expect(await failure(["rotate", "sealing-key", "--key-file", path, "--retire", "1"]) == nil)
            #expect(try SealingKeyring(text: try read(path)).versions == [2])
            #expect(await failure(["rotate", "sealing-key", "--key-file", path]) == nil)
            #expect(try SealingKeyring(text: try read(path)).versions == [2, 3])
        }
    }

    @Test func anUnknownOrNewestVersionIsNotRetired() async throws {
        try await withKeyFile { path in
            #expect(await failure(["rotate", "sealing-key", "--key-file", path]) == nil)
            let before = try read(path)
            #expect(
                await failure(["rotate", "sealing-key", "--key-file", path, "--retire", "7"])
                    == "cannot retire sealing key version 7: there is no key version 7 (the keys held are version 1, 2); nothing was changed")
            #expect(
                await failure(["rotate", "sealing-key", "--key-file", path, "--retire", "2"])
                    == "cannot retire sealing key version 2: version 2 is the newest key, which new values are sealed with: add a newer one first; nothing was changed"
            )
            for bad in ["0", "one", "1.5", "99999999999"] {
                #expect(
                    await failure(["rotate", "sealing-key", "--key-file", path, "--retire", bad])
                        == "--retire needs a key version, a whole number such as 1, not '\(bad)'")
            }
            #expect(try read(path) == before)
        }
    }

    @Test func aDamagedOrMissingKeyFileIsNamedAndLeftAlone() async throws {
        let damaged = "1:\(SealingKeyring.generateText())\n2:\(SealingKeyring.generateText().dropLast(8))\n"
        try await withKeyFile(damaged) { path in
            #expect(
                await failure(["rotate", "sealing-key", "--key-file", path])
                    == "the sealing key file \(path) is damaged: entry 2 (version 2): a key is 32 bytes, base64-encoded; nothing was changed")
            let unchanged = try read(path)
            #expect(unchanged == damaged)
            #expect(await failure(["rotate", "sealing-key", "--key-file", path + "-gone"]) == "cannot read the sealing key file \(path)-gone")
        }
        try await withKeyFile("1:\(SealingKeyring.generateText()) 1:\(SealingKeyring.generateText())") { path in
            #expect(
                await failure(["rotate", "sealing-key", "--key-file", path])?.hasSuffix("is damaged: version 1 appears twice; nothing was changed")
                    == true)
        }
    }

    @Test func optionsThatDoNotGoTogetherAreUsageErrors() async throws {
        try await withKeyFile { path in
            #expect(await failure(["rotate", "sealing-key", "--status", "--retire", "1"]) == "--retire, --status and --reseal go one at a time")
            #expect(
                await failure(["rotate", "sealing-key", "--key-file", path, "--data-dir", "/tmp"])
                    == "--key-file changes a file only and --data-dir a running `custodian up`: give one of them")
            #expect(
                await failure(["rotate", "sealing-key", "--key-file", path, "--status"])?.hasPrefix("--status and --reseal ask a running") == true)
        }
    }

    @Test func withoutARunningUpNothingChanges() async throws {
        try await withTemporaryDirectory { data in
            try Files.makeDirectory(data + "/secrets")
            try Files.write(SealingKeyring.generateText(), to: data + "/secrets/sealing-key")
            let before = try read(data + "/secrets/sealing-key")
            for arguments in [[], ["--status"], ["--reseal"], ["--retire", "1"]] {
                #expect(
                    await failure(["rotate", "sealing-key", "--data-dir", data] + arguments)
                        == "no `custodian up` is running with the data directory \(data); with the platform stopped, change its key file with --key-file \(data)/secrets/sealing-key"
                )
            }
            #expect(try read(data + "/secrets/sealing-key") == before)
        }
    }
}
