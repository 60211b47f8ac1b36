import CustodianContracts
import CustodianRPC
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import PostgresNIO

/// API consumers: the apps (and tools) registered to use the geotag API, each with a public key and a
/// secret that signs its requests.
public struct Consumers: Sendable {
    let database: Database
    let sealer: Sealer

    public init(database: Database, sealer: Sealer) {
        self.database = database
        self.sealer = sealer
    }

    /// A consumer as the signature check needs it.
    struct Stored: Sendable {
        var id: Int64
        var secret: String
    }

    /// `POST /admin/v1/api-consumers`.
    func create(_ input: CreateConsumerRequest, context: CallContext) async throws -> CreatedConsumer {
        let created = try await create(name: input.name, synthetic: context.createsSynthetic, logger: context.logger)
        context.logger.notice(
            "API consumer created", metadata: ["consumer_key": .string(created.consumer_key), "admin": .string(context.principal?.id ?? "-")])
        return created
    }

    /// Creates a consumer (for the admin route and `custodian admin create-consumer`).
    public func create(name: String, synthetic: Bool = false, logger: Logger) async throws -> CreatedConsumer {
        // 128 random bits name the consumer; 256 bits are its secret (DESIGN.md, security rules).
        let key = SecretToken.generate(byteCount: 16)
        let secret = SecretToken.generate()
        let sealed = try sealer.seal(secret, context: Self.sealingContext(key))
        let hash = SecretToken.hash(secret)
        let rows = try await database.query(
            """
            INSERT INTO routes.consumers (consumer_key, name, secret_sealed, secret_sha256, synthetic)
            VALUES (\(key), \(name), \(sealed), \(hash), \(synthetic)) RETURNING created_at
            """, logger: logger)
        for try await createdAt in rows.decode(Date.self) {
            return CreatedConsumer(consumer_key: key, consumer_secret: secret, name: name, created_at: Self.iso(createdAt))
        }
        throw RPCError.internal("the API consumer was not stored")
    }

    /// `GET /admin/v1/api-consumers`: keys and names, never secrets.
    func list(_ query: SyntheticQuery, context: CallContext) async throws -> ConsumerList {
        let synthetic = query.synthetic.wanted
        let rows = try await database.query(
            """
            SELECT consumer_key, name, created_at, revoked_at FROM routes.consumers
            WHERE \(synthetic)::boolean IS NULL OR synthetic = \(synthetic) ORDER BY created_at, id
            """, logger: context.logger)
        var consumers: [ConsumerList.Consumer] = []
        for try await (key, name, createdAt, revokedAt) in rows.decode((String, String, Date, Date?).self) {
            consumers.append(
                ConsumerList.Consumer(consumer_key: key, name: name, created_at: Self.iso(createdAt), revoked_at: revokedAt.map(Self.iso)))
        }
        return ConsumerList(consumers: consumers)
    }

    /// `DELETE /admin/v1/api-consumers/{consumer_key}`: its signed requests are refused from now on, and its sealed
    /// secret is wiped; the routes it stored stay. A second revocation finds nothing left. A synthetic consumer (loadgen's,
    /// docs/operations.md "Synthetic data") is no study's: it goes with its routes, so that the clean-up leaves nothing.
    func revoke(_ input: ConsumerByKey, context: CallContext) async throws -> ErasureReceipt {
        if let receipt = try await eraseSynthetic(input, context: context) { return receipt }
        var revoked = 0
        let rows = try await database.query(
            """
            UPDATE routes.consumers SET revoked_at = now(), secret_sealed = ''::bytea
            WHERE consumer_key = \(input.key) AND revoked_at IS NULL RETURNING 1
            """, logger: context.logger)
        for try await _ in rows.decode(Int.self) { revoked += 1 }
        if revoked > 0 {
            context.logger.notice(
                "API consumer revoked", metadata: ["consumer_key": .string(input.key), "admin": .string(context.principal?.id ?? "-")])
        }
        return ErasureReceipt(target: "api_consumer", id: input.key, deleted: ["consumer_secrets": revoked], context: context)
    }

    /// Deletes the consumer with this key and its routes if it is synthetic; nil when it is not (or unknown).
    private func eraseSynthetic(_ input: ConsumerByKey, context: CallContext) async throws -> ErasureReceipt? {
        let logger = context.logger
        let deleted = try await database.withTransaction(logger: logger) { connection -> [String: Int]? in
            var found: Int64?
            for try await id in try await connection.query(
                "SELECT id FROM routes.consumers WHERE consumer_key = \(input.key) AND synthetic FOR UPDATE", logger: logger
            ).decode(Int64.self) { found = id }
            guard let consumer = found else { return nil }
            let routes = try await connection.count("DELETE FROM routes.routes WHERE consumer_id = \(consumer)", logger: logger)
            let consumers = try await connection.count("DELETE FROM routes.consumers WHERE id = \(consumer)", logger: logger)
            return ["consumers": consumers, "routes": routes]
        }
        guard let deleted else { return nil }
        logger.notice(
            "synthetic API consumer erased", metadata: ["consumer_key": .string(input.key), "admin": .string(context.principal?.id ?? "-")])
        return ErasureReceipt(target: "api_consumer", id: input.key, deleted: deleted, context: context)
    }

    /// The consumer with this key and its secret, opened; nil for an unknown key.
    func find(key: String, logger: Logger) async throws -> Stored? {
        let rows = try await database.query(
            "SELECT id, secret_sealed, secret_sha256, revoked_at IS NOT NULL FROM routes.consumers WHERE consumer_key = \(key)", logger: logger)
        for try await (id, sealed, hash, revoked) in rows.decode((Int64, Data, Data, Bool).self) {
            guard !revoked else { throw SignatureVerifier.refusal("This API key was revoked", reason: "revoked_api_key") }
            let secret: String
            do {
                secret = try sealer.open(sealed, context: Self.sealingContext(key))
            } catch {
                // Another deployment's key, or a row copied between consumers: an operator's problem, not the client's.
                logger.error("an API consumer's secret does not open with this deployment's sealing key", metadata: ["consumer_key": .string(key)])
                throw RPCError.internal("consumer secret cannot be opened")
            }
            guard SecretToken.constantTimeEquals(SecretToken.hash(secret), hash) else {
                logger.error("an API consumer's secret does not match its hash", metadata: ["consumer_key": .string(key)])
                throw RPCError.internal("consumer secret does not match its hash")
            }
            return Stored(id: id, secret: secret)
        }
        return nil
    }

    /// A revoked consumer's secret is wiped to an empty value, which holds nothing to re-seal.
    static let sealed = SealedColumn(
        table: "routes.consumers", column: "secret_sealed", key: "consumer_key", contextPrefix: "routes-consumer-secret:")

    /// Binds a sealed secret to its consumer, so that it opens for no other row.
    static func sealingContext(_ key: String) -> String { sealed.context(key) }

    static func iso(_ date: Date) -> String { Date.ISO8601FormatStyle().format(date) }
}
