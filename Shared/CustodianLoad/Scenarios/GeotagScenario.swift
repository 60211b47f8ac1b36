import CustodianGeotag
import Foundation
import GeotagClient
import Synchronization

/// The geotagging app (docs/geotag.md): API consumers created by an admin before the clock; then routes sealed with
/// XChaCha20-Poly1305 and stored with signed requests (half the operations), fetched (four in ten) and deleted by
/// their owner (one in ten). Every route stored and not deleted is fetched back at the end.
///
/// The app derives a key (Argon2id, 64 MiB) per route; a consumer here derives one for the whole run and seals
/// each route with a fresh XChaCha20 nonce, so that the load is on the server and not on the generator's memory.
struct GeotagScenario: Scenario {
    let name = "geotag"

    struct Consumer: Sendable {
        var store: RouteStoreClient
        var key: RouteKey
    }

    /// The stored routes. An operation checks one out while it uses it, so that no two operations fetch or delete
    /// the same route at once, and none uses a route again within the second it was last used: a signature covers
    /// the request and its second, and the server refuses the same signature twice.
    final class Routes: Sendable {
        struct Entry: Sendable {
            var id: String
            var consumer: Int
            var lastUsed: Int
        }

        private let state = Mutex<(live: [Entry], deleted: Int)>(([], 0))

        func stored(_ id: String, by consumer: Int) {
            state.withLock { $0.live.append(Entry(id: id, consumer: consumer, lastUsed: Self.second)) }
        }

        func checkOut(_ number: Int) -> Entry? {
            let now = Self.second
            return state.withLock { state in
                guard !state.live.isEmpty else { return nil }
                for step in 0..<min(state.live.count, 64) {
                    let index = (number + step) % state.live.count
                    if state.live[index].lastUsed != now { return state.live.remove(at: index) }
                }
                return nil
            }
        }

        func checkIn(_ entry: Entry) {
            var used = entry
            used.lastUsed = Self.second
            state.withLock { $0.live.append(used) }
        }

        func deleted() { state.withLock { $0.deleted += 1 } }
        var live: [Entry] { state.withLock { $0.live } }
        var deletedCount: Int { state.withLock { $0.deleted } }

        static var second: Int { Int(Date().timeIntervalSince1970) }
    }

    let consumers: [Consumer]
    let routes = Routes()
    let ledger = Ledger<String>()

    static func prepare(client: LoadClient, consumers count: Int, log: @escaping @Sendable (String) -> Void) async throws -> GeotagScenario {
        let consumers = try await concurrently(Array(0..<count), width: 2) { index in
            let created = try await client.setupJSON(
                "POST /admin/v1/api-consumers", .POST, "/admin/v1/api-consumers",
                json: #"{"name":"load generator \#(index)"}"#, admin: true)
            guard let key = created["consumer_key"] as? String, let secret = created["consumer_secret"] as? String else {
                throw SetupError("the API consumer came without its key and secret")
            }
            let store = try RouteStoreClient(server: client.baseURL, key: key, secret: secret, http: client.http, onAnswer: AnswerTrace.note)
            return Consumer(store: store, key: try RouteKey(passphrase: "load generator \(index)", nonce: .random()))
        }
        log("geotag     \(consumers.count) API consumers")
        return GeotagScenario(consumers: consumers)
    }

    func operation(_ number: Int, client: LoadClient) async -> OperationOutcome {
        let slot = number % 10
        if slot >= 5, let route = routes.checkOut(number / 10) {
            let consumer = consumers[route.consumer]
            if slot == 9 {
                do {
                    try await consumer.store.delete(routeID: route.id)
                    routes.deleted()
                    return .answered("delete", 204)
                } catch {
                    routes.checkIn(route)
                    return Self.outcome("delete", error)
                }
            }
            defer { routes.checkIn(route) }
            do {
                _ = try await consumer.store.fetch(routeID: route.id)
                return .answered("fetch", 200)
            } catch {
                return Self.outcome("fetch", error)
            }
        }
        let owner = number % consumers.count
        let consumer = consumers[owner]
        let tracks =
            #"{"tracks":[[{"lat":52.0907,"lon":5.1214,"time":"2025-11-24T16:00:00Z"},{"lat":52.0911,"lon":5.1222,"time":"2025-11-24T16:00:05Z","operation":\#(number)}]]}"#
        do {
            let blob = try RouteSealer.seal(plaintext: Data(tracks.utf8), key: consumer.key)
            let stored = try await consumer.store.store(blob, lookupID: nil)
            ledger.record(stored.routeID)
            routes.stored(stored.routeID, by: owner)
            return .answered("store", 201)
        } catch {
            return Self.outcome("store", error)
        }
    }

    static func outcome(_ kind: String, _ error: any Error) -> OperationOutcome {
        if case .refused(let status, _) = error as? RouteStoreError { return .answered(kind, status) }
        return .failed(kind, error)
    }

    func verify(client: LoadClient) async throws -> Verification {
        let live = routes.live
        let found = try await concurrently(live) { route -> String? in
            do {
                return try await consumers[route.consumer].store.fetch(routeID: route.id).routeID
            } catch RouteStoreError.refused(let status, _) where status == 404 {
                return nil
            }
        }
        // Routes deleted by their owner are no longer expected.
        let expected = Ledger<String>()
        expected.record(live.map(\.id))
        return expected.verification(
            name, found: found.compactMap { $0 },
            notes: ["\(ledger.all.count) routes stored, \(routes.deletedCount) of them deleted by their owner during the run"])
    }
}
