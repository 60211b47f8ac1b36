import CustodianContracts
import CustodianSecurity
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// A column whose values are sealed with the deployment's sealing key, declared once in its service's definition
/// (``ServiceDefinition/sealed``) as retention classes are: the service seals and opens its values with ``context(_:)``,
/// and `system.sealing` counts them by key version and re-seals them under the newest key
/// (docs/operations.md, "Rotating the sealing key").
public struct SealedColumn: Sendable {
    /// `schema.table`.
    public var table: String
    /// A `bytea` column; NULL and empty values hold nothing sealed.
    public var column: String
    /// A unique column whose text (`key::text`) names the row; the context is made from it.
    public var key: String
    /// What the context (the associated data that binds a value to its row) starts with; the key's text follows.
    public var contextPrefix: String

    public init(table: String, column: String, key: String, contextPrefix: String) {
        for name in [table, column, key] {
            precondition(
                !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_" || $0 == ".") },
                "a sealed column is declared with plain SQL names: \(name)")
        }
        self.table = table
        self.column = column
        self.key = key
        self.contextPrefix = contextPrefix
    }

    /// The associated data of the row whose key's text is `key`.
    public func context(_ key: String) -> String { contextPrefix + key }

    /// The SQL of the version a value is sealed under, as the 4 bytes of ``SealedValueFormat/versionBytes(_:)``.
    var versionSQL: String {
        let magic = SealedValueFormat.magic.map { String(format: "%02x", $0) }.joined()
        return """
            CASE WHEN length(\(column)) >= \(SealedValueFormat.shortestVersioned) AND substring(\(column) FROM 1 FOR 4) = '\\x\(magic)'::bytea \
            THEN substring(\(column) FROM 5 FOR 4) ELSE '\\x00000001'::bytea END
            """
    }

    /// Values that hold something sealed.
    var presentSQL: String { "\(column) IS NOT NULL AND length(\(column)) > 0" }

    /// How many values are under each key version, lowest first.
    func versionCounts(_ database: Database, logger: Logger) async throws -> [SystemMethods.SealedValues.VersionCount] {
        let rows = try await database.query(
            PostgresQuery(unsafeSQL: "SELECT \(versionSQL) AS version, count(*)::bigint FROM \(table) WHERE \(presentSQL) GROUP BY version"),
            logger: logger)
        var counts: [SystemMethods.SealedValues.VersionCount] = []
        for try await (bytes, count) in rows.decode((Data, Int).self) {
            counts.append(.init(version: Int(bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }), values: count))
        }
        return counts.sorted { $0.version < $1.version }
    }

    /// What a re-seal pass did to the column.
    struct Pass: Sendable, Equatable {
        var resealed = 0
        var changedMeanwhile = 0
        var unopenable = 0
    }

    /// Seals every value under another version than the keyring's newest again under the newest, `batchSize` rows at a
    /// time in key order, each batch one short statement: the rows are read without a lock, opened and sealed here, and
    /// written back only where the value is still the one read, so that a value a service changed meanwhile keeps its
    /// change (and is counted in ``Pass/changedMeanwhile``). `afterRead` lets a test change values at that moment.
    func reseal(
        _ database: Database, sealer: Sealer, batchSize: Int = 500, logger: Logger,
        afterRead: (@Sendable ([String]) async throws -> Void)? = nil
    ) async throws -> Pass {
        let keyType = try await self.keyType(database, logger: logger)
        let newest = SealedValueFormat.versionBytes(sealer.keyring.newest)
        var pass = Pass()
        var last: String?
        while true {
            try Task.checkCancellation()
            var query = PostgresQuery(
                unsafeSQL: "SELECT \(key)::text, \(column) FROM \(table) WHERE \(presentSQL) AND \(versionSQL) <> $1"
                    + (last == nil ? "" : " AND \(key) > $2::\(keyType)") + " ORDER BY \(key) LIMIT \(batchSize)")
            try query.binds.append(newest)
            if let last { query.binds.append(last) }
            var keys: [String] = [], old: [ByteBuffer] = [], new: [ByteBuffer] = []
            var read = 0
            for try await (rowKey, sealed) in try await database.query(query, logger: logger).decode((String, Data).self) {
                read += 1
                last = rowKey
                guard let plaintext = try? sealer.open(sealed, context: context(rowKey)) else {
                    pass.unopenable += 1
                    continue
                }
                keys.append(rowKey)
                old.append(ByteBuffer(bytes: sealed))
                new.append(ByteBuffer(bytes: try sealer.seal(plaintext, context: context(rowKey))))
            }
            if !keys.isEmpty {
                try await afterRead?(keys)
                var update = PostgresQuery(
                    unsafeSQL: """
                        UPDATE \(table) AS t SET \(column) = u.sealed FROM unnest($1::text[], $2::bytea[], $3::bytea[]) AS u(key, old, sealed)
                        WHERE t.\(key) = u.key::\(keyType) AND t.\(column) = u.old
                        """)
                update.binds.append(keys)
                update.binds.append(old)
                update.binds.append(new)
                let written = try await database.withTransaction(logger: logger) { connection in
                    try await connection.count(update, logger: logger)
                }
                pass.resealed += written
                pass.changedMeanwhile += keys.count - written
            }
            if read < batchSize { return pass }
        }
    }

    /// The key column's type, for comparing the text the pass holds with it (`uuid`, `text`).
    private func keyType(_ database: Database, logger: Logger) async throws -> String {
        let rows = try await database.query(
            """
            SELECT format_type(atttypid, atttypmod) FROM pg_attribute
            WHERE attrelid = to_regclass(\(table)) AND attname = \(key) AND attnum > 0 AND NOT attisdropped
            """, logger: logger)
        for try await type in rows.decode(String.self) { return type }
        throw SealedColumnMissing(table: table, key: key)
    }
}

/// A declared sealed column's table or key column is not in the database: the declaration is wrong.
struct SealedColumnMissing: Error, CustomStringConvertible {
    var table: String
    var key: String
    var description: String { "the sealed column's table \(table) has no column \(key)" }
}

extension Sealer {
    /// The deployment's sealer, from `CUSTODIAN_SEALING_KEY` (usually its `_FILE`); a bad key file is refused with the
    /// setting named, which stops the service at start.
    public init(configuration: Configuration) throws {
        let text = try configuration.require(RuntimeKey.sealingKey)
        do {
            try self.init(keyringText: text)
        } catch {
            throw ConfigurationError(message: "\(RuntimeKey.sealingKey) is damaged: \(error)")
        }
    }
}
