import Foundation
import Testing
@testable import CustodianRPC

/// A frame over the limit would make its receiver close the connection and fail every call that shares it:
/// only the call that is too large fails, with its own error.
@Suite("Frames over the limit fail one call, not a connection")
struct FrameLimitTests {
    @Test func aRequestTooLargeToSendIsA413AndTheConnectionStaysUp() async throws {
        try await withServer { _, directory, _ in
            var settings = RPCClient.Settings()
            settings.maximumFrameSize = 4096
            settings.connectionsPerEndpoint = 1
            let client = makeClient(directory: directory, settings: settings)
            defer { client.shutdown() }
            let before = try await client.call("test", "test.echo", input: Echo(text: "before"), context: context(), as: Echo.self)
            #expect(before.text == "before")
            let error = await #expect(throws: RPCError.self) {
                try await client.call(
                    "test", "test.echo", input: Echo(text: String(repeating: "\u{1}", count: 1000)), context: context(), as: Echo.self)
            }
            #expect(error?.code == .payloadTooLarge && error?.reason == "request_too_large", "6000 bytes once escaped")
            let after = try await client.call("test", "test.echo", input: Echo(text: "after"), context: context(), as: Echo.self)
            #expect(after.text == "after")
        }
    }

    @Test func anAnswerTooLargeToSendIsAnErrorAndTheConnectionStaysUp() async throws {
        try await withServer(maximumFrameSize: 4096) { _, directory, _ in
            var settings = RPCClient.Settings()
            settings.connectionsPerEndpoint = 1
            let client = makeClient(directory: directory, settings: settings)
            defer { client.shutdown() }
            let error = await #expect(throws: RPCError.self) {
                try await client.call("test", "test.repeat", input: Echo(text: "x", delayMilliseconds: 5000), context: context(), as: Echo.self)
            }
            #expect(error?.code == .internalError, "\(String(describing: error))")
            let after = try await client.call("test", "test.echo", input: Echo(text: "still here"), context: context(), as: Echo.self)
            #expect(after.text == "still here")
        }
    }
}
