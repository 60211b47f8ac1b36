import CustodianContracts
import CustodianLemon
import CustodianRuntime
import CustodianSecurity
import Foundation
import LemonClient
import NIOHTTP1
import Testing

/// `custodian rotate sealing-key` on a running platform (docs/operations.md, "Rotating the sealing key"): a sealed
/// value of every kind, a rotation and a retirement while `custodian loadgen` writes, and afterwards nothing in the
/// database, or in a `pg_dump` of it, that the old key opens, while every one of those secrets still does its job.
extension OneAtATime {
    @Suite("Sealing key rotation", .serialized, .runningPlatform)
    struct SealingKeyRotation {
        /// Every column that holds a value sealed with the deployment's key, as `table.column`.
        static let sealedColumns: Set<String> = [
            "auth.signing_keys.private_key_sealed", "auth.lemon_sessions.keys_sealed", "devices.devices.activation_token_sealed",
            "devices.opensense_devices.key_sealed", "vault.modules.secret_sealed", "routes.consumers.secret_sealed",
            "links.short_links.app_url_sealed",
        ]

        static func rotate(_ arguments: [String]) async throws -> (status: Int32, output: String) {
            let platform = try platform
            return try await platform.custodian(["rotate", "sealing-key", "--data-dir", platform.dataDirectory] + arguments)
        }

        /// What each sealing service's `system.sealing` says.
        static func report() async throws -> [SystemMethods.SealedValues] {
            var all: [SystemMethods.SealedValues] = []
            for service in Platform.sealingKeyReaders.sorted() {
                all.append(
                    try await platform.call(
                        service, SystemMethods.sealing.name, input: SystemMethods.SealingRequest(), principal: nil,
                        as: SystemMethods.SealedValues.self))
            }
            return all
        }

        struct SealedValue {
            var column: String
            var key: String
            var context: String
            var sealed: Data
        }

        /// Every non-empty value of every sealed column, read with psql, with the context it is bound to.
        static func sealedValues(_ columns: [SystemMethods.SealedValues.Column]) throws -> [SealedValue] {
            let platform = try platform
            var values: [SealedValue] = []
            for column in columns {
                let rows = try platform.sql(
                    "SELECT encode(\(column.column), 'hex'), \(column.key)::text FROM \(column.table) WHERE length(\(column.column)) > 0")
                for row in rows.split(separator: "\n") {
                    let parts = row.split(separator: "|", maxSplits: 1).map(String.init)
                    values.append(
                        SealedValue(
                            column: "\(column.table).\(column.column)", key: parts[1],
                            context: column.context.replacingOccurrences(of: "{key}", with: parts[1]), sealed: Self.bytes(parts[0])))
                }
            }
            return values
        }

        /// The same values as a `pg_dump` holds them: each sealed table's `COPY` block, its key and sealed columns.
        static func dumpedValues(_ columns: [SystemMethods.SealedValues.Column]) throws -> [SealedValue] {
            let dump = try platform.databaseDump().split(separator: "\n", omittingEmptySubsequences: false)
            var values: [SealedValue] = []
            for column in columns {
                guard let start = dump.firstIndex(where: { $0.hasPrefix("COPY \(column.table) (") }) else {
                    throw PlatformError("no COPY of \(column.table) in the dump")
                }
                let names = dump[start].drop { $0 != "(" }.dropFirst().prefix { $0 != ")" }.split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                let keyIndex = try #require(names.firstIndex(of: column.key)), valueIndex = try #require(names.firstIndex(of: column.column))
                for line in dump[(start + 1)...].prefix(while: { $0 != "\\." }) {
                    let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
                    // bytea in COPY's text form: `\\x` and hex; `\N` is NULL.
                    let value = fields[valueIndex]
                    guard value.hasPrefix("\\\\x"), value.count > 3 else { continue }
                    let key = String(fields[keyIndex])
                    values.append(
                        SealedValue(
                            column: "\(column.table).\(column.column)", key: key,
                            context: column.context.replacingOccurrences(of: "{key}", with: key),
                            sealed: Self.bytes(String(value.dropFirst(3)))))
                }
            }
            return values
        }

        static func bytes(_ hex: String) -> Data {
            Data(stride(from: 0, to: hex.count, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16) ?? 0 })
        }

        @Test func everySealedValueMovesToANewKeyUnderLoadAndTheOldKeyIsRetired() async throws {
            let platform = try platform
            let marker = UUID().uuidString.prefix(8).lowercased()
            // One of each kind: an OpenSense device's storage key, a Twomes device's activation token, a vault module's
            // secret, an API consumer's secret, a LEMON session's keys (and the access tokens' signing key), a short link.
            let openSenseID = "rotate-\(marker)"
            let registered = try await PlatformTests.OpenSense.post("/register", [("device_id", openSenseID)])
            let openSenseKey = try #require(registered.json?["key"] as? String, "\(registered.text)")
            let deviceName = PlatformTests.TwomesProvisioning.deviceName()
            let deviceToken = "rotate-token-\(marker)"
            try await PlatformTests.DeviceLabels.register(deviceName, token: deviceToken)
            let vaultUser = try await PlatformTests.Vault.newUser(name: "Rotation \(marker)")
            let module = try await PlatformTests.Vault.install(vaultUser, repo: "eu.ownyourdata.rotate", read: true, write: true)
            let consumer = try await PlatformTests.Geotag.consumer("Rotation app \(marker)")
            let lemon = try await PlatformTests.Lemon.client()
            let app = LemonApp.generate()
            let lemonSession = try await lemon.register(app, operatingSystem: "IOS", language: "en", pushToken: nil)
            let appURL = "warmtewachter://activate?token=rotate-\(marker)"
            let link = try await platform.request(.POST, "/admin/v1/links", json: #"{"app_url":"\#(appURL)"}"#, admin: true)
            let code = try #require(link.json?["code"] as? String, "\(link.text)")
            let oldSealer = try platform.sealer()
            #expect(oldSealer.keyring.versions == [1])

            let before = try await Self.report()
            #expect(Set(before.flatMap { $0.columns.map { "\($0.table).\($0.column)" } }) == Self.sealedColumns)
            #expect(before.allSatisfy { $0.newestVersion == 1 && $0.valuesUnderOlderKeys == 0 })
            let status = try await Self.rotate(["--status"])
            #expect(status.status == 0 && status.output.contains("devices.opensense_devices.key_sealed: version 1:"), "\(status.output)")

            // Rotate, then retire the old key, while the load generator writes: not one request may fail.
            async let load = platform.loadgen(RunningPlatform.gentleLoad(for: "100s"))
            try await Task.sleep(for: .seconds(3))
            let started = ContinuousClock.now
            let rotated = try await Self.rotate([])
            let rotation = ContinuousClock.now - started
            #expect(rotated.status == 0, "\(rotated.output)")
            #expect(rotated.output.contains("added sealing key version 2") && rotated.output.contains("every sealed value is under key version 2"))
            let retired = try await Self.rotate(["--retire", "1"])
            let retirement = ContinuousClock.now - started - rotation
            #expect(retired.status == 0, "\(retired.output)")
            let run = try await load
            // The load ran 3 s before the rotation began, and must outlast both.
            #expect(rotation + retirement < .seconds(95), "the load ended before the retirement did: \(rotation), \(retirement)")
            #expect(run.status == 0, "\(run.output)")
            let report = try #require(run.report, "\(run.output)")
            #expect(report.total.errors == 0 && report.total.operations > 500, "\(report.total)")
            #expect(report.nothingLost, "\(report.verification)")
            print(
                "sealing key rotation under load: rotation \(rotation), retirement \(retirement); loadgen: \(report.total.operations) requests, \(report.total.errors) errors"
            )

            // The key file holds version 2 alone, and every service runs with it.
            let newSealer = try platform.sealer()
            #expect(newSealer.keyring.versions == [2])
            let after = try await Self.report()
            #expect(after.allSatisfy { $0.keyVersions == [2] && $0.newestVersion == 2 && $0.valuesUnderOlderKeys == 0 }, "\(after)")
            let columns = after.flatMap(\.columns)

            // Every sealed value, in the database and in a dump of it, is under version 2: the new key opens it, the old
            // one does not.
            let stored = try Self.sealedValues(columns)
            let dumped = try Self.dumpedValues(columns)
            #expect(Set(stored.map(\.column)) == Self.sealedColumns, "a kind of sealed value is missing: \(Set(stored.map(\.column)))")
            #expect(dumped.count == stored.count, "\(dumped.count) sealed values in the dump, \(stored.count) in the database")
            for value in stored + dumped {
                #expect(SealedValueFormat.version(of: value.sealed) == 2, "\(value.column) \(value.key) is not under version 2")
                #expect(throws: SealerError.self, "\(value.column) \(value.key) opens with the old key") {
                    try oldSealer.open(value.sealed, context: value.context)
                }
                #expect((try? newSealer.open(value.sealed, context: value.context)) != nil, "\(value.column) \(value.key) does not open")
            }

            // And each secret still does its job.
            let recovered = try await platform.request(.GET, "/admin/v1/opensense/devices/\(openSenseID)/key", admin: true)
            #expect(recovered.json?["key"] as? String == openSenseKey, "\(recovered.text)")
            let label = try await platform.request(.GET, "/admin/v1/devices/\(deviceName)/label", admin: true)
            let scanned = String(decoding: try QRScanner.decode(label.body), as: UTF8.self)
            #expect(label.status == 200 && scanned.contains(#""pop": "\#(deviceToken)""#), "\(scanned)")
            for token in [
                vaultUser.token,
                try #require(try await PlatformTests.Vault.login(vaultUser.email, vaultUser.password).json?["access_token"] as? String),
            ] {
                let modules = try await platform.request(.GET, "/api/modules/index", headers: PlatformTests.Vault.bearer(token))
                let entries = try JSONSerialization.jsonObject(with: modules.body) as? [[String: Any]]
                #expect(entries?.first?["secret"] as? String == module.secret, "\(modules.text)")
            }
            // A signature the consumer's secret makes is accepted: the lookup of a route that is not there is a 404, not a 401.
            let signed = try await PlatformTests.Geotag.signed(.GET, "/route/lookup/\(String(repeating: "0", count: 64))", by: consumer)
            #expect(signed.status == 404, "\(signed.status) \(signed.text)")
            // The session opened before the rotation (its keys re-sealed, its access token signed by the re-sealed key),
            // and a new one.
            for session in [lemonSession, try await lemon.authenticate(app)] {
                let symptoms = try await lemon.call(.GET, "/api/v1/symptoms", session: session)
                #expect(symptoms.status == 200 && symptoms.wasEncrypted && symptoms.envelope.success == true)
            }
            let phone = try await platform.request(.GET, "/l/\(code)", headers: [("User-Agent", PlatformTests.Links.iPhone)])
            #expect(phone.headers.first(name: "Location") == appURL)
        }

        @Test func badRequestsAreRefusedWithAReasonAndChangeNothing() async throws {
            let platform = try platform
            let keyFile = platform.dataDirectory + "/secrets/sealing-key"
            let original = try String(contentsOfFile: keyFile, encoding: .utf8)
            let newest = try platform.sealer().keyring.newest
            for (arguments, message) in [
                (["--retire", "\(newest + 7)"], "cannot retire sealing key version \(newest + 7): there is no key version \(newest + 7)"),
                (["--retire", "\(newest)"], "cannot retire sealing key version \(newest): version \(newest) is the newest key"),
                (["--retire", "one"], "--retire needs a key version, a whole number such as 1, not 'one'"),
                (["--status", "--reseal"], "--retire, --status and --reseal go one at a time"),
            ] {
                let refused = try await Self.rotate(arguments)
                #expect(refused.status != 0 && refused.output.contains(message), "\(arguments): \(refused.output)")
            }
            #expect(try String(contentsOfFile: keyFile, encoding: .utf8) == original)
            let elsewhere = try await platform.custodian(["rotate", "sealing-key", "--data-dir", "/tmp/no-such-custodian-\(UUID().uuidString)"])
            #expect(elsewhere.status == 1 && elsewhere.output.contains("no `custodian up` is running with the data directory"), "\(elsewhere.output)")

            // A damaged key file: nothing restarts, nothing changes.
            let pid = try platform.pid(of: "auth")
            try "1:\(SealingKeyring.generateText().dropLast(6))\n".write(toFile: keyFile, atomically: false, encoding: .utf8)
            defer { try? original.write(toFile: keyFile, atomically: false, encoding: .utf8) }
            let damaged = try await Self.rotate([])
            #expect(damaged.status == 1, "\(damaged.output)")
            #expect(damaged.output.contains("the sealing key file \(keyFile) is damaged: entry 1 (version 1): a key is 32 bytes, base64-encoded"))
            #expect(try platform.pid(of: "auth") == pid)
        }
    }
}
