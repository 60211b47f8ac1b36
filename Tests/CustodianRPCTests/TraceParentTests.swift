import Testing
@testable import CustodianRPC

/// The trace id the gateway answers as `X-Request-Id` is read from the `traceparent` its tracer wrote.
@Suite("Trace ids from traceparent")
struct TraceParentTests {
    @Test func theTraceIDOfAW3CTraceparent() {
        #expect(TraceParent.traceID(of: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01") == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(TraceParent.traceID(of: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00") == "0af7651916cd43dd8448eb211c80319c")
    }

    @Test func anythingElseHasNone() {
        for text in [
            "", "00-4bf92f3577b34da6a3ce929d0e0e4736", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", "00-é4bf92f3577b34da6a3ce929d0e0e47-00f067aa0ba902b7-01",
        ] {
            #expect(TraceParent.traceID(of: text) == nil, "\(text)")
        }
    }
}
