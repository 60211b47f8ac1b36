import CustodianContracts
import CustodianRPC
import CustodianSecurity
import Foundation
import Logging
import PostgresNIO
import ServiceTestSupport
import Testing

@testable import CustodianRuntime

/// The re-seal pass of `system.sealing` over a table of its own: every value moves to the newest key in batches, a
/// value changed while the pass has it in hand keeps its change, and what does not open stays as it was.
@Suite("Re-sealing under the newest sealing key")
struct ResealTests {
    static let logger = Logger(label: "reseal-tests")
    static let key1 = SealingKeyring.generateText()
    static let oldSealer = try! Sealer(keyringText: key1)
    static let sealer = Sealer(keyring: try! SealingKeyring(text: key1).adding())
    static let things = SealedColumn(table: "public.things", column: "secret", key: "name", contextPrefix: "thing:")
    static let sessions = SealedColumn(table: "public.sessions", column: "keys", key: "id", contextPrefix: "session:")

    /// Runs `body` with a fresh database holding `things` (text keys) and `sessions` (uuid keys).
    func withTables(_ body: @Sendable (Database, PostgresClient) async throws -> Void) async throws {
        let (admin, _) = try await TestPostgres.shared.makeDatabase(for: [], logger: Self.logger)
        try await PostgresClient.withClient(url: admin, logger: Self.logger) { client in
            try await client.query("CREATE TABLE things (name text PRIMARY KEY, secret bytea)", logger: Self.logger)
            try await client.query("CREATE TABLE sessions (id uuid PRIMARY KEY, keys bytea NOT NULL)", logger: Self.logger)
            try await body(Database(client: client), client)
        }
    }

    func insertThings(_ names: some Sequence<String>, sealer: Sealer, into database: Database) async throws {
        var keys: [String] = [], values: [ByteBuffer] = []
        for name in names {
            keys.append(name)
            values.append(ByteBuffer(bytes: try sealer.seal("plain-\(name)", context: Self.things.context(name))))
        }
        try await database.query("INSERT INTO things SELECT * FROM unnest(\(keys)::text[], \(values)::bytea[])", logger: Self.logger)
    }

    func secret(_ name: String, in database: Database) async throws -> Data {
        let rows = try await database.query("SELECT secret FROM things WHERE name = \(name)", logger: Self.logger)
        for try await value in rows.decode(Data.self) { return value }
        throw HarnessError("no thing \(name)")
    }

    func counts(_ column: SealedColumn, in database: Database) async throws -> [Int: Int] {
        Dictionary(uniqueKeysWithValues: try await column.versionCounts(database, logger: Self.logger).map { ($0.version, $0.values) })
    }

    @Test func everyValueMovesToTheNewestKeyAndOpensWithItAlone() async throws {
        try await withTables { database, _ in
            let names = (0..<40).map { String(format: "thing-%03d", $0) }
            try await insertThings(names.prefix(37), sealer: Self.oldSealer, into: database)
            // Already under the newest key; and a NULL and an empty value, which hold nothing.
            try await insertThings(names.suffix(3), sealer: Self.sealer, into: database)
            try await database.query("INSERT INTO things VALUES ('none', NULL), ('wiped', ''::bytea)", logger: Self.logger)
            #expect(try await counts(Self.things, in: database) == [1: 37, 2: 3])

            let pass = try await Self.things.reseal(database, sealer: Self.sealer, batchSize: 5, logger: Self.logger)
            #expect(pass == .init(resealed: 37, changedMeanwhile: 0, unopenable: 0))
            #expect(try await counts(Self.things, in: database) == [2: 40])
            let newOnly = Sealer(keyring: try Self.sealer.keyring.retiring(1))
            for name in names {
                let sealed = try await secret(name, in: database)
                #expect(try newOnly.open(sealed, context: Self.things.context(name)) == "plain-\(name)")
                #expect(throws: SealerError.unknownVersion(2)) { try Self.oldSealer.open(sealed, context: Self.things.context(name)) }
            }
            #expect(try await secret("wiped", in: database).isEmpty)
            // Nothing left to do: a second pass changes nothing.
            #expect(try await Self.things.reseal(database, sealer: Self.sealer, batchSize: 5, logger: Self.logger) == .init())
        }
    }

    @Test func rowsKeyedByUUIDAreWalkedInTheirOwnOrder() async throws {
        try await withTables { database, _ in
            var ids: [UUID] = [], values: [ByteBuffer] = []
            for _ in 0..<23 {
                let id = UUID()
                ids.append(id)
                values.append(ByteBuffer(bytes: try Self.oldSealer.seal("keys", context: Self.sessions.context(id.uuidString.lowercased()))))
            }
            try await database.query("INSERT INTO sessions SELECT * FROM unnest(\(ids)::uuid[], \(values)::bytea[])", logger: Self.logger)
            let pass = try await Self.sessions.reseal(database, sealer: Self.sealer, batchSize: 4, logger: Self.logger)
            #expect(pass.resealed == 23 && pass.unopenable == 0)
            #expect(try await counts(Self.sessions, in: database) == [2: 23])
        }
    }

    /// A service writes a value while the pass holds the old one: the service's value stays (it is not overwritten with
    /// the pass's stale copy), is counted, and a second pass moves it.
    @Test func aValueChangedMeanwhileKeepsItsChange() async throws {
        try await withTables { database, client in
            let names = (0..<12).map { "changing-\($0)" }
            try await insertThings(names, sealer: Self.oldSealer, into: database)
            let changed = try Self.oldSealer.seal("changed meanwhile", context: Self.things.context("changing-7"))
            let pass = try await Self.things.reseal(database, sealer: Self.sealer, batchSize: 5, logger: Self.logger) { read in
                guard read.contains("changing-7") else { return }
                try await client.query("UPDATE things SET secret = \(changed) WHERE name = 'changing-7'", logger: Self.logger)
            }
            #expect(pass == .init(resealed: 11, changedMeanwhile: 1, unopenable: 0))
            #expect(try await secret("changing-7", in: database) == changed)
            #expect(try await counts(Self.things, in: database) == [1: 1, 2: 11])
            #expect(try await Self.things.reseal(database, sealer: Self.sealer, logger: Self.logger).resealed == 1)
            #expect(
                try Self.sealer.open(try await secret("changing-7", in: database), context: Self.things.context("changing-7")) == "changed meanwhile")
        }
    }

    /// A value copied from another row, or sealed under a key the file lacks, is left as it is and counted, and the pass
    /// goes on past it.
    @Test func whatDoesNotOpenStaysAndIsCounted() async throws {
        try await withTables { database, client in
            try await insertThings(["a", "b", "c", "d"], sealer: Self.oldSealer, into: database)
            try await client.query("UPDATE things SET secret = (SELECT secret FROM things WHERE name = 'a') WHERE name = 'b'", logger: Self.logger)
            let foreign = Sealer(keyring: try SealingKeyring(text: SealingKeyring.generateText()).adding().adding())
            let unknown = try foreign.seal("plain-c", context: Self.things.context("c"))
            try await client.query("UPDATE things SET secret = \(unknown) WHERE name = 'c'", logger: Self.logger)
            let pass = try await Self.things.reseal(database, sealer: Self.sealer, batchSize: 1, logger: Self.logger)
            #expect(pass == .init(resealed: 2, changedMeanwhile: 0, unopenable: 2))
            #expect(try await secret("c", in: database) == unknown)
            #expect(try await counts(Self.things, in: database) == [1: 1, 2: 2, 3: 1])
        }
    }

    /// `system.sealing` as a replica answers it, with `keyFile` as its `CUSTODIAN_SEALING_KEY`.
    func report(_ database: Database, keyFile: String, reseal: Bool) async throws -> SystemMethods.SealedValues {
        let environment = ServiceEnvironment(
            name: "things", instance: "things-1", configuration: try Configuration(environment: [RuntimeKey.sealingKey: keyFile], arguments: []),
            database: database, services: RPCClient(services: [:], logger: Self.logger), logger: Self.logger)
        return try await SealedValuesReport(environment: environment, columns: [Self.things]).answer(reseal: reseal, logger: Self.logger)
    }

    /// A replica started before the key file gained a version must not seal values back under its older key: it
    /// refuses, and changes nothing.
    @Test func aReplicaWithAnOlderNewestKeyRefusesToReseal() async throws {
        try await withTables { database, _ in
            try await insertThings(["old"], sealer: Self.oldSealer, into: database)
            try await insertThings(["new"], sealer: Self.sealer, into: database)
            let stale = try await report(database, keyFile: Self.key1, reseal: false)
            #expect(stale.keyVersions == [1] && stale.newestVersion == 1)
            #expect(stale.columns.map(\.versions) == [[.init(version: 1, values: 1), .init(version: 2, values: 1)]])
            #expect(stale.columns.first?.context == "thing:{key}")
            let refused = await rpcError { try await report(database, keyFile: Self.key1, reseal: true) }
            #expect(refused?.code == .conflict && refused?.reason == "newer_sealing_key", "\(String(describing: refused))")
            #expect(try await counts(Self.things, in: database) == [1: 1, 2: 1])

            let current = try await report(database, keyFile: Self.sealer.keyring.text, reseal: true)
            #expect(current.newestVersion == 2 && current.valuesUnderOlderKeys == 0 && current.columns.first?.resealed == 1)
            #expect(current.resealSeconds != nil)
        }
    }
}
