import Crypto
import CustodianContracts
import CustodianRPC
import CustodianRuntime
import Foundation
import Logging
import PostgresNIO

/// The geotag route store (docs/geotag.md): encrypted routes the server cannot read, stored by
/// the consumer that signed the upload, fetched by route id or lookup id, deleted by their owner (docs/geotag.md, "Fetching and deleting").
struct RouteStore: Sendable {
    let database: Database

    /// `POST /route`. A retry of the same blob by the same consumer answers the first route and stores nothing.
    func store(_ upload: RouteUpload, context: CallContext) async throws -> StoredRoute {
        let consumer = try Access.consumerID(context)
        let digest = Data(SHA256.hash(data: upload.blob))
        let logger = context.logger
        // A draw of 128 random bits repeating is not going to happen, but if it did it must not look like a conflict.
        for _ in 0..<3 {
            let routeID = RouteID.generate()
            let inserted = try await database.query(
                """
                INSERT INTO routes.routes (route_id, consumer_id, blob, blob_sha256, lookup_id)
                VALUES (\(routeID), \(consumer), \(upload.blob), \(digest), \(upload.lookupID))
                ON CONFLICT DO NOTHING
                RETURNING route_id, extract(epoch FROM created_at)::bigint
                """, logger: logger)
            for try await (id, created) in inserted.decode((String, Int64).self) {
                logger.info(
                    "route stored",
                    metadata: ["route_id": .string(id), "consumer": .stringConvertible(consumer), "bytes": .stringConvertible(upload.blob.count)])
                return StoredRoute(route_id: id, creation_time: created)
            }
            let retried = try await database.query(
                """
                SELECT route_id, extract(epoch FROM created_at)::bigint FROM routes.routes
                WHERE consumer_id = \(consumer) AND blob_sha256 = \(digest)
                """, logger: logger)
            for try await (id, created) in retried.decode((String, Int64).self) { return StoredRoute(route_id: id, creation_time: created) }
            if let lookupID = upload.lookupID {
                for try await _ in try await database.query("SELECT 1 FROM routes.routes WHERE lookup_id = \(lookupID)", logger: logger) {
                    throw RPCError(
                        .conflict, reason: "lookup_id_taken",
                        message: "Another route is stored under this lookup_id; a new recording needs a new nonce")
                }
            }
        }
        throw RPCError(.conflict, reason: "route_id_collision", message: "Could not store the route; try again")
    }

    /// `GET /route/{route_id}`: any consumer may fetch a route whose id it knows; only the passphrase opens it.
    func get(_ input: RouteByID, context: CallContext) async throws -> FetchedRoute {
        try await fetch(where: .routeID, equals: input.routeID, logger: context.logger)
    }

    /// `GET /route/lookup/{lookup_id}`: the route a phone stored under the lookup id derived from its QR nonce.
    func lookup(_ input: RouteLookup, context: CallContext) async throws -> FetchedRoute {
        try await fetch(where: .lookupID, equals: input.lookupID, logger: context.logger)
    }

    /// `DELETE /route/{route_id}` by the consumer that stored it: the row and its blob are deleted.
    func delete(_ input: RouteByID, context: CallContext) async throws -> Empty {
        let consumer = try Access.consumerID(context)
        let routeID = input.routeID
        let logger = context.logger
        let deleted = try await database.query(
            "DELETE FROM routes.routes WHERE route_id = \(routeID) AND consumer_id = \(consumer) RETURNING 1", logger: logger)
        for try await _ in deleted {
            logger.info("route deleted", metadata: ["route_id": .string(routeID), "consumer": .stringConvertible(consumer)])
            return Empty()
        }
        // Anyone who knows the id may read the route, so saying that it exists gives nothing away.
        for try await _ in try await database.query("SELECT 1 FROM routes.routes WHERE route_id = \(routeID)", logger: logger) {
            throw RPCError.forbidden("Only the API consumer that stored this route may delete it", reason: "not_route_owner")
        }
        throw RPCError.noRoute
    }

    private func fetch(where column: Column, equals value: String, logger: Logger) async throws -> FetchedRoute {
        let rows: DatabaseRows
        switch column {
        case .routeID:
            rows = try await database.query(
                "SELECT route_id, extract(epoch FROM created_at)::bigint, blob FROM routes.routes WHERE route_id = \(value)", logger: logger)
        case .lookupID:
            rows = try await database.query(
                "SELECT route_id, extract(epoch FROM created_at)::bigint, blob FROM routes.routes WHERE lookup_id = \(value)", logger: logger)
        }
        for try await (id, created, blob) in rows.decode((String, Int64, Data).self) {
            return FetchedRoute(route_id: id, creation_time: created, route: blob.base64EncodedString())
        }
        throw RPCError.noRoute
    }

    enum Column {
        case routeID, lookupID
    }
}
