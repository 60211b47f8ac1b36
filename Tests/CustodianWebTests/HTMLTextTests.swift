import CustodianWeb
import Testing

@Suite("HTML text")
struct HTMLTextTests {
    @Test func escapingLeavesNoMarkup() {
        #expect(HTMLText.escape(#"<script>alert("x")</script> & 'y'"#) == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;")
    }
}
