import CustodianRPC
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Testing
@testable import CustodianRuntime

/// A database that is gone or does not answer: a call gives up after the wait and becomes a 503 with Retry-After,
/// instead of waiting for the caller's whole deadline.
@Suite("Database: bounded waits, errors clients understand")
struct DatabaseTests {
    /// Runs `body` with a `Database` whose pool points at `port` on loopback, with its pool running.
    func withDatabase(port: Int, _ body: @Sendable (Database) async throws -> Void) async throws {
        let url = DatabaseURL(host: "127.0.0.1", port: port, username: "nobody", password: "x", database: "none")
        let client = PostgresClient(url: url, logger: Logger(label: "database-tests"))
        let database = Database(client: client, waitTimeout: .milliseconds(500))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            try await body(database)
            group.cancelAll()
        }
    }

    func expectUnavailableSoon(_ database: Database) async {
        let started = ContinuousClock.now
        let error = await #expect(throws: (any Error).self) { try await database.query("SELECT 1", logger: Logger(label: "test")) }
        let waited = ContinuousClock.now - started
        // Alone this takes the 500 ms of the wait. Beside the whole suite on two cores, while eight platforms start
        // (initdb, PostgreSQL, seven services each), the test process gets little CPU and it has taken 10.6 s. Without
        // the bound the call would wait for a connection for ever: that is what this catches.
        #expect(waited < .seconds(30), "waited \(waited) with a 500 ms wait")
        let rpcError = error.flatMap { DatabaseErrors.rpcError(for: $0, logger: Logger(label: "test")) }
        #expect(rpcError?.code == .unavailable, "\(String(describing: error))")
        #expect(rpcError?.retryAfter == DatabaseErrors.retryAfterSeconds)
        #expect(rpcError?.reason == "database_unavailable")
    }

    @Test func aServerThatRefusesConnectionsIsA503Soon() async throws {
        let closedPort = try await freePort()
        try await withDatabase(port: closedPort) { database in
            await expectUnavailableSoon(database)
            await expectUnavailableSoon(database)
        }
    }

    /// The case that hung for the whole deadline: the port accepts connections and then says nothing.
    @Test func aServerThatNeverAnswersIsA503AfterTheWait() async throws {
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { $0.eventLoop.makeSucceededVoidFuture() }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { silent.close(promise: nil) }
        try await withDatabase(port: try #require(silent.localAddress?.port)) { database in
            await expectUnavailableSoon(database)
        }
    }

    @Test func logsNameADatabaseErrorWithoutItsMessage() {
        let description = DatabaseErrors.logDescription(DatabaseUnavailable.noConnection(waited: .seconds(1)))
        #expect(description.contains("no database connection"))
    }

    private func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(channel.localAddress?.port)
        try await channel.close()
        return port
    }
}
