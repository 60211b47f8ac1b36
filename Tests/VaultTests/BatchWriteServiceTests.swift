import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation
import LinksService
import PostgresNIO
import ServiceTestSupport
import Testing
import VaultService

/// Batches of records (`POST /api/repos/{identifier}/items` with an array) as the vault stores them, called as the
/// gateway would for a logged-in user: the good records of a batch are written even when others are refused, each
/// answer says which, and a retried batch stores no encrypted record twice.
@Suite("vault: batch writes")
struct BatchWriteServiceTests {
    static let user = Principal(kind: .user, id: "1", scopes: ["vault"])

    static func run(_ body: @Sendable (ServiceHarness) async throws -> Void) async throws {
        try await ServiceHarness.run([VaultService.definition, LinksService.definition]) { harness in
            // What auth does when it creates a user: the vault makes the user's key pair.
            _ = try await harness.call(VaultMethods.usersInit, VaultUserKeysInput(userID: 1, password: "correct horse"))
            try await body(harness)
        }
    }

    static func write(_ records: JSONValue, on harness: ServiceHarness) async throws -> (status: Int, body: JSONValue) {
        let reply = try await harness.call(
            VaultMethods.itemsWrite.forwarded, HTTPInput(body: records, path: ["identifier": "oyd.location"]), as: user)
        let bytes = try #require(Data(base64Encoded: reply.body))
        return (reply.status, try JSONValue.parse(Array(bytes), maximumDepth: 32))
    }

    static func encrypted(_ nonce: String) -> JSONValue {
        ["version": "0.4", "value": "c0ffee00", "nonce": .string(nonce)]
    }

    static let nonceA = String(repeating: "a1", count: 24)
    static let nonceB = String(repeating: "b2", count: 24)

    @Test func goodRecordsAreWrittenBesideRefusedOnesAndEachAnswerSaysWhich() async throws {
        try await Self.run { harness in
            let batch: JSONValue = [
                ["timestamp": "2017-12-28T01:10:22Z", "latitude": .double(15.4291)],
                "not a record",
                ["version": "0.4", "value": "c0ffee00", "nonce": "short"],
                Self.encrypted(Self.nonceA),
                ["version": "0.4", "value": "not hex", "nonce": .string(Self.nonceB)],
            ]
            let (status, answer) = try await Self.write(batch, on: harness)
            #expect(status == 400)
            #expect(answer["processed"] == 5)
            guard case .array(let responses)? = answer["responses"], responses.count == 5 else {
                Issue.record("responses: \(answer)")
                return
            }
            #expect(responses.map { $0["status"] } == [200, 400, 400, 200, 400])
            #expect(responses[1]["error"] == "A record must be a JSON object")
            #expect(responses[2]["error"] == "An encrypted record (version 0.4) needs a nonce of 48 hexadecimal characters")
            #expect(responses[4]["error"] == "An encrypted record (version 0.4) needs a hexadecimal value")
            let ids = try await harness.scalar("SELECT string_agg(id::text, ',' ORDER BY id) FROM vault.items", as: String.self)
            guard case .int(let first)? = responses[0]["id"], case .int(let second)? = responses[3]["id"] else {
                Issue.record("ids: \(responses)")
                return
            }
            #expect(ids == "\(first),\(second)")
        }
    }

    @Test func aRetriedBatchStoresNoEncryptedRecordTwice() async throws {
        try await Self.run { harness in
            let first: JSONValue = [Self.encrypted(Self.nonceA)]
            let (_, stored) = try await Self.write(first, on: harness)
            // The app lost the answer and sends the batch again, with a new record; nonces differ only in case.
            let retry: JSONValue = [Self.encrypted(Self.nonceA.uppercased()), Self.encrypted(Self.nonceB)]
            let (status, answer) = try await Self.write(retry, on: harness)
            #expect(status == 200)
            guard case .array(let before)? = stored["responses"], case .array(let after)? = answer["responses"], after.count == 2 else {
                Issue.record("answers: \(stored), \(answer)")
                return
            }
            #expect(after[0]["id"] == before[0]["id"])
            #expect(after[0]["id"] != after[1]["id"])
            #expect(try await harness.scalar("SELECT count(*) FROM vault.items", as: Int.self) == 2)

            // Twice within one batch: one row, both answered with its id.
            let nonceC = String(repeating: "c3", count: 24)
            let (_, twice) = try await Self.write([Self.encrypted(nonceC), Self.encrypted(nonceC)], on: harness)
            guard case .array(let both)? = twice["responses"], both.count == 2 else {
                Issue.record("answer: \(twice)")
                return
            }
            #expect(both[0]["id"] == both[1]["id"])
            #expect(try await harness.scalar("SELECT count(*) FROM vault.items", as: Int.self) == 3)
        }
    }

    @Test func anotherPrincipalIsRefusedBeforeAnythingIsWritten() async throws {
        try await Self.run { harness in
            let device = Principal(kind: .device, id: "1")
            let refused = await rpcError {
                try await harness.call(
                    VaultMethods.itemsWrite.forwarded, HTTPInput(body: [Self.encrypted(Self.nonceA)], path: ["identifier": "oyd.location"]),
                    as: device)
            }
            #expect(refused?.code == .forbidden)
            let anonymous = await rpcError {
                try await harness.call(
                    VaultMethods.itemsWrite.forwarded, HTTPInput(body: [Self.encrypted(Self.nonceA)], path: ["identifier": "oyd.location"]))
            }
            #expect(anonymous?.code == .unauthenticated)
            let repos = try await harness.scalar("SELECT count(*) FROM vault.repos", as: Int.self)
            let items = try await harness.scalar("SELECT count(*) FROM vault.items", as: Int.self)
            #expect(repos == 0 && items == 0)
        }
    }
}
