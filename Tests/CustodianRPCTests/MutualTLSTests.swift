import Foundation
import NIOCore
import NIOPosix
import Testing
@testable import CustodianRPC

/// RPC over TCP between machines: mutual TLS with the cluster's own CA, and each service accepting only its callers.
@Suite("RPC over TCP: mutual TLS")
struct MutualTLSTests {
    static let authority = Result { try ClusterCertificates(name: "Custodian test CA") }

    /// A `devices` replica on TCP with its certificate, accepting `allowed`; `body` gets its endpoint and call count.
    /// `tls`: the server's own, instead of one of ``authority`` for `names`.
    func withTLSServer(
        named names: [String] = ["devices", "devices-rpc.custodian.svc"], allowed: Set<String>? = ["gateway"], tls given: RPCTLS? = nil,
        _ body: @Sendable (Endpoint, StartedCalls) async throws -> Void
    ) async throws {
        let started = StartedCalls()
        let tls = try given ?? Self.authority.get().tls(for: names)
        let server = RPCServer(
            configuration: .init(endpoint: .tcp(host: "127.0.0.1", port: 0), tls: tls, allowedCallers: allowed),
            methods: testMethods(started: started), logger: testLogger)
        let group = ServiceGroupForTests(server)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let port = try #require(try await server.listeningAddress().port)
            do {
                try await body(.tcp(host: "127.0.0.1", port: port), started)
            } catch {
                await group.stop()
                throw error
            }
            await group.stop()
            try await tasks.waitForAll()
        }
    }

    func client(to endpoint: Endpoint, tls: RPCTLS?) -> RPCClient {
        var settings = RPCClient.Settings()
        settings.tls = tls
        // Beside the whole suite a connection (and its handshake) can take seconds.
        settings.connectTimeout = .seconds(10)
        return RPCClient(services: ["devices": .endpoints([endpoint])], settings: settings, logger: testLogger)
    }

    func echo(_ client: RPCClient, timeout: TimeInterval = 20) async throws -> Echo {
        try await client.call("devices", "test.echo", input: Echo(text: "over TLS"), context: context(timeout: timeout), as: Echo.self)
    }

    @Test func aCallerWithItsCertificateIsServed() async throws {
        try await withTLSServer { endpoint, started in
            let client = client(to: endpoint, tls: try Self.authority.get().tls(for: ["gateway"]))
            defer { client.shutdown() }
            #expect(try await echo(client).text == "over TLS")
            #expect(started.value == 1)
        }
    }

    @Test func aCallerWithoutACertificateGetsNothing() async throws {
        try await withTLSServer { endpoint, started in
            // Plain TCP, and TLS with a certificate of another CA.
            let stranger = try ClusterCertificates(name: "Someone else's CA").tls(for: ["gateway"])
            for tls in [nil, stranger] {
                let client = client(to: endpoint, tls: tls)
                defer { client.shutdown() }
                let error = await #expect(throws: RPCError.self) { try await echo(client) }
                #expect(error?.code == .unavailable || error?.code == .deadlineExceeded, "\(String(describing: error))")
            }
            #expect(started.value == 0, "a call without a valid certificate ran")
        }
    }

    @Test func aServiceAcceptsOnlyItsCallers() async throws {
        try await withTLSServer { endpoint, started in
            // `routes` holds a certificate of the cluster, but never calls `devices`.
            let client = client(to: endpoint, tls: try Self.authority.get().tls(for: ["routes"]))
            defer { client.shutdown() }
            let error = await #expect(throws: RPCError.self) { try await echo(client) }
            #expect(error?.code == .unavailable || error?.code == .deadlineExceeded, "\(String(describing: error))")
            #expect(started.value == 0, "a caller the service does not accept ran a call")
        }
    }

    @Test func aServerWhoseCertificateNamesAnotherServiceIsNotCalled() async throws {
        // A `links` replica where the caller expects `devices` (a wrong address in discovery, or an impostor).
        try await withTLSServer(named: ["links"], allowed: nil) { endpoint, started in
            let client = client(to: endpoint, tls: try Self.authority.get().tls(for: ["gateway"]))
            defer { client.shutdown() }
            let error = await #expect(throws: RPCError.self) { try await echo(client) }
            #expect(error?.code == .unavailable, "\(String(describing: error))")
            #expect(started.value == 0)
        }
    }
}
