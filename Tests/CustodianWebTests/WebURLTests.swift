import CustodianWeb
import Testing

/// Found by schemathesis: Foundation accepts `http://ô`, which no client reading the stored URL as a URI can use.
@Suite("Web URLs clients give to be stored")
struct WebURLTests {
    @Test func onlyAbsoluteASCIIWebURLsWithAHostAreWebURLs() {
        for good in ["https://example.org", "http://example.org/manual/x?y=1#z", "HTTPS://xn--d1acufc.xn--p1ai/", "http://example.org/%C3%B4"] {
            #expect(WebURL.isWeb(good), "\(good)")
        }
        for bad in [
            "http://ô", "httP://🇺🇸", "https://exa mple.org", "https://", "ftp://example.org", "example.org", "", "https://example.org/\u{7F}",
            "https://example.org/" + String(repeating: "a", count: 2048),
        ] {
            #expect(!WebURL.isWeb(bad), "\(bad)")
        }
        #expect(WebURL.parse("warmtewachter://account/abc")?.scheme == "warmtewachter")
        #expect(WebURL.parse("warmtewachter://accöunt") == nil)
        #expect(WebURL.parse("1http://example.org") == nil)
    }
}
