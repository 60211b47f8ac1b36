import CustodianContracts
import Foundation
import GatewayKit
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Scopes are checked in the gateway before any service is called, and every admin call is recorded in the audit log
/// before it runs (refused with 503 when it cannot be) and after it.
@Suite("Admin scopes and the audit trail")
struct AdminScopeTests {
    @Test func aScopeThatDoesNotIncludeTheRoutesIsA403InTheRoutesStyleAndNothingIsCalled() async throws {
        try await GatewayHarness.withGateway { client, harness in
            try await client.execute(
                uri: "/admin/v1/echo", method: .post, headers: [.authorization: "Bearer \(GatewayHarness.researcherToken)"],
                body: ByteBuffer(string: "{}")
            ) { response in
                #expect(response.status == .forbidden)
                #expect(
                    String(buffer: response.body)
                        == #"{"error":{"message":"This needs the operator scope; this identity has the researcher scope","reason":"insufficient_scope"}}"#
                        + "\n")
            }
            try await client.execute(
                uri: "/account/admin-echo", method: .post, headers: [.authorization: "Bearer \(GatewayHarness.researcherToken)"],
                body: ByteBuffer(string: "{}")
            ) { response in
                #expect(response.status == .forbidden)
                #expect(
                    String(buffer: response.body) == #"{"detail":"This needs the operator scope; this identity has the researcher scope"}"# + "\n")
            }
            // No entry: the call never began.
            #expect(harness.audit.records.isEmpty)
            // A wider scope includes the narrower one.
            try await client.execute(uri: "/admin/v1/echo", method: .get, headers: [.authorization: "Bearer \(GatewayHarness.adminToken)"]) {
                response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test func anAdminCallIsRecordedBeforeAndAfterWithItsIdentityTargetsQueryAndCounts() async throws {
        try await GatewayHarness.withGateway { client, harness in
            var bytes = 0
            try await client.execute(
                uri: "/admin/v1/echo?pseudonym=801186&limit=5", method: .get,
                headers: [.authorization: "Bearer \(GatewayHarness.researcherToken)"]
            ) { response in
                #expect(response.status == .ok)
                bytes = response.body.readableBytes
            }
            let records = harness.audit.records
            #expect(records.map(\.phase) == [.begin, .end])
            for record in records {
                #expect(record.identity == "researcher-1" && record.identity_label == "test researcher" && record.scope == "researcher")
                #expect(record.action == "GET /admin/v1/echo")
                #expect(record.targets == ["801186"])
                #expect(record.query == "limit=5&pseudonym=801186")
            }
            #expect(records[0].status == nil && records[0].bytes == nil)
            #expect(records[1].status == 200)
            // The service's answer as JSON, without the newline the gateway adds.
            #expect(records[1].bytes == Int64(bytes - 1))
            // No credential in the log.
            #expect(!String(describing: records).contains(GatewayHarness.researcherToken))
        }
    }

    @Test func anAdminCallWhoseEntryCannotBeWrittenIsRefusedWith503() async throws {
        try await GatewayHarness.withGateway { client, harness in
            harness.audit.fail(true)
            try await client.execute(
                uri: "/admin/v1/echo", method: .post, headers: [.authorization: "Bearer \(GatewayHarness.adminToken)"],
                body: ByteBuffer(string: "{}")
            ) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] == "2")
                #expect(
                    String(buffer: response.body)
                        == #"{"error":{"message":"The audit log cannot be written, so this admin action was not performed","reason":"audit_unavailable"}}"#
                        + "\n")
            }
            harness.audit.fail(false)
            // Participant-facing routes are not audited.
            try await client.execute(uri: "/account/echo", method: .post, body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .ok)
            }
            #expect(harness.audit.records.isEmpty)
        }
    }

    @Test func scopesIncludeTheNarrowerOnes() {
        #expect(AdminScope.owner.allows(.operator) && AdminScope.owner.allows(.researcher) && AdminScope.operator.allows(.researcher))
        #expect(!AdminScope.researcher.allows(.operator) && !AdminScope.operator.allows(.owner))
    }
}
