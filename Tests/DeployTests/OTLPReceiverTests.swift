import Testing

/// Deploy/dev/otlp/receiver.py is the collector of the tracing tests and of Deploy/dev/bench-tracing.sh: what they
/// conclude from the spans it wrote down is only as good as its decoding. Its own tests (receiver_test.py) post exports
/// built with opentelemetry-proto, plain and gzipped, and check what it reports; they run in the tools' virtual
/// environment (Deploy/dev/python-tools.sh), made on first use.
@Suite("OTLP receiver")
struct OTLPReceiverTests {
    @Test func theReceiversOwnTestsPass() async throws {
        let (status, text) = try await runScript([
            "bash", "-c", #"source Deploy/dev/python-tools.sh >&2 && exec "$tools/python" Deploy/dev/otlp/receiver_test.py"#,
        ])
        #expect(status == 0, "Deploy/dev/otlp/receiver_test.py exited with \(status):\n\(text)")
        #expect(text.contains("\nOK"), "\(text)")
    }
}
