import Foundation
import Testing
@testable import CustodianRPC

/// `RPCClient.callEachReplica`: what each process keeps on its own (the spans it dropped) is asked of every replica,
/// once each, and a replica that does not answer is left out instead of failing the rest or being asked again elsewhere.
@Suite("RPC client: asking each replica")
struct EachReplicaTests {
    static let who = RPCMethod<Empty, String>("test.who", retry: .safe)

    static func methods(_ name: String, asked: StartedCalls) -> RPCMethods {
        var methods = testMethods()
        methods.register(who.name, input: Empty.self) { _, _ in
            asked.record()
            return name
        }
        return methods
    }

    @Test func everyReplicaAnswersOnceAndASilentOneIsLeftOut() async throws {
        let directory = try temporarySocketDirectory()
        let asked = (StartedCalls(), StartedCalls(), StartedCalls())
        let silentReads = StartedCalls()
        // Accepts connections and reads calls, but never answers: a replica that hangs.
        let silent = try await ReplicaBalancingTests.FaultyReplica(path: "\(directory)/silent.sock") {
            ReplicaBalancingTests.CountReads(silentReads)
        }
        defer { silent.channel.close(promise: nil) }
        try await withServer(methods: Self.methods("a", asked: asked.0), directory: directory) { _, _, _ in
            try await withServer(methods: Self.methods("b", asked: asked.1), directory: directory) { _, _, _ in
                try await withServer(methods: Self.methods("c", asked: asked.2), directory: directory) { _, _, _ in
                    let client = makeClient(directory: directory)
                    defer { client.shutdown() }
                    // The silent one holds its call until the timeout: 10 s, as a loaded machine (the whole suite
                    // starting at once) took over 1 s to answer any (seen).
                    let answers = await client.callEachReplica(Self.who, on: "test", context: context(), timeout: .seconds(10))
                    #expect(answers.sorted() == ["a", "b", "c"])
                    let calls: [Int] = [asked.0.value, asked.1.value, asked.2.value]
                    #expect(calls == [1, 1, 1])
                    #expect(silentReads.value >= 1, "the silent replica was not asked")
                    // A service the client does not know has no replicas to ask.
                    #expect(await client.callEachReplica(Self.who, on: "nobody", context: context()).isEmpty)
                }
            }
        }
    }
}
