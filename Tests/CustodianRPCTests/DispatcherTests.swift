import CustodianJSON
import Foundation
import Logging
import NIOCore
import Testing
@testable import CustodianRPC

@Suite("JSON-RPC request handling")
struct DispatcherTests {
    let dispatcher = RPCDispatcher(methods: testMethods(), logger: testLogger, errorMapper: { _ in nil })

    private func answer(_ request: String) async throws -> [String: Any]? {
        guard let response = await dispatcher.handle(ByteBuffer(string: request)) else { return nil }
        return try #require(try JSONSerialization.jsonObject(with: Data(response.readableBytesView)) as? [String: Any])
    }

    private func errorCode(_ response: [String: Any]?) -> Int? {
        (response?["error"] as? [String: Any])?["code"] as? Int
    }

    @Test func methodsDeclaredForSomePrincipalsRefuseTheOthersBeforeTheyRun() async throws {
        let started = StartedCalls()
        let dispatcher = RPCDispatcher(methods: testMethods(started: started), logger: testLogger, errorMapper: { _ in nil })
        func call(_ method: String, as principal: String?) async throws -> [String: Any] {
            let context = principal.map { #"{"requestId":"t","principal":{"kind":"\#($0)","id":"p-\#($0)","scopes":[]}}"# } ?? #"{"requestId":"t"}"#
            let response = try #require(
                await dispatcher.handle(
                    ByteBuffer(string: #"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":{"context":\#(context),"input":{}}}"#)))
            return try #require(try JSONSerialization.jsonObject(with: Data(response.readableBytesView)) as? [String: Any])
        }
        func refusal(_ response: [String: Any]) -> (code: Int?, message: String?) {
            let error = response["error"] as? [String: Any]
            return (error?["code"] as? Int, error?["message"] as? String)
        }
        #expect(try await call("test.adminOnly", as: "admin")["result"] as? String == "p-admin")
        for caller in ["user", "device"] {
            let answer = refusal(try await call("test.adminOnly", as: caller))
            #expect(answer.code == 403 && answer.message == "Admin credentials required", "\(caller)")
        }
        let nobody = refusal(try await call("test.adminOnly", as: nil))
        #expect(nobody.code == 401 && nobody.message == "Authentication required")
        #expect(try await call("test.vaultOnly", as: "module")["result"] as? String == "p-module")
        #expect(try await call("test.vaultOnly", as: "user")["result"] as? String == "p-user")
        let admin = refusal(try await call("test.vaultOnly", as: "admin"))
        #expect(admin.code == 403 && admin.message == "This method is for module, user credentials only")
        // A method may refuse in its API's own words.
        #expect(try await call("test.ownerOnly", as: "user")["result"] as? String == "p-user")
        let module = refusal(try await call("test.ownerOnly", as: "module"))
        #expect(module.code == 403 && module.message == "Only the owner may")
        #expect(started.value == 4, "a refused call reached its handler")
    }

    @Test func invalidJSONIsAParseErrorWithNullID() async throws {
        let response = try await answer(#"{"jsonrpc":"2.0","id":7,"method":"#)
        #expect(errorCode(response) == -32700)
        #expect(response?["id"] is NSNull)
        #expect(response?["jsonrpc"] as? String == "2.0")
    }

    @Test func unknownMethodIsMethodNotFound() async throws {
        let response = try await answer(#"{"jsonrpc":"2.0","id":"abc","method":"nope.nothing","params":{}}"#)
        #expect(errorCode(response) == -32601)
        #expect(response?["id"] as? String == "abc")
    }

    @Test func missingVersionIsAnInvalidRequest() async throws {
        let response = try await answer(#"{"id":1,"method":"test.echo"}"#)
        #expect(errorCode(response) == -32600)
        #expect(response?["id"] as? Int == 1)
    }

    @Test func batchesAreRefusedAsInvalidRequests() async throws {
        let response = try await answer(#"[{"jsonrpc":"2.0","id":1,"method":"test.echo"}]"#)
        #expect(errorCode(response) == -32600)
    }

    @Test func numericAndStringIDsAreEchoed() async throws {
        let numeric = try await answer(#"{"jsonrpc":"2.0","id":42,"method":"test.echo","params":{"input":{"text":"hi"}}}"#)
        #expect(numeric?["id"] as? Int == 42)
        #expect((numeric?["result"] as? [String: Any])?["text"] as? String == "hi")
        let string = try await answer(#"{"jsonrpc":"2.0","id":"x-1","method":"test.echo","params":{"input":{"text":"hi"}}}"#)
        #expect(string?["id"] as? String == "x-1")
    }

    @Test func notificationsGetNoResponseEvenWhenTheyFail() async throws {
        #expect(try await answer(#"{"jsonrpc":"2.0","method":"test.echo","params":{"input":{"text":"hi"}}}"#) == nil)
        #expect(try await answer(#"{"jsonrpc":"2.0","method":"nope"}"#) == nil)
    }

    @Test func badParamsSayWhichFieldIsWrong() async throws {
        let response = try await answer(#"{"jsonrpc":"2.0","id":1,"method":"test.echo","params":{"input":{"text":5}}}"#)
        #expect(errorCode(response) == -32602)
        let message = (response?["error"] as? [String: Any])?["message"] as? String
        #expect(message?.contains("input.text must be a string") == true)
    }

    @Test func applicationErrorsCarryCodeReasonAndMessage() async throws {
        let response = try await answer(#"{"jsonrpc":"2.0","id":1,"method":"test.notFound"}"#)
        let error = try #require(response?["error"] as? [String: Any])
        #expect(error["code"] as? Int == 404)
        #expect(error["message"] as? String == "No account found for provided activation token")
        #expect((error["data"] as? [String: Any])?["reason"] as? String == "activation_token_not_found")
    }

    @Test func aPassedDeadlineIsRefusedWithoutRunning() async throws {
        let past = Int64(Date().addingTimeInterval(-1).timeIntervalSince1970 * 1000)
        let response = try await answer(
            #"{"jsonrpc":"2.0","id":1,"method":"test.echo","params":{"context":{"requestId":"r","deadline":\#(past)},"input":{"text":"x"}}}"#)
        #expect(errorCode(response) == 504)
    }

    @Test func theContextReachesTheHandler() async throws {
        let response = try await answer(
            #"{"jsonrpc":"2.0","id":1,"method":"test.whoami","params":{"context":{"requestId":"r","principal":{"kind":"admin","id":"a-1","scopes":[]}}}}"#
        )
        #expect(response?["result"] as? String == "a-1")
    }
}
