import CustodianRPC
import Crypto
import CustodianWeb
import Foundation
import Hummingbird

/// A page the gateway makes itself: one self-contained HTML document whose only style is inline, and a
/// Content-Security-Policy that lets nothing else load or run (no script at all, the style by its hash).
struct HTMLPage: Sendable {
    let title: String
    let body: String

    static let stylesheet = """
        body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem 1.5rem;color:#1b1b1b;background:#fff}
        h1,h2,h3{line-height:1.25}h2{border-bottom:1px solid #ccc;padding-bottom:.2rem;margin-top:2.5rem}
        h3{margin-top:2rem;font-size:1.05rem}code,pre{font:13px/1.45 ui-monospace,monospace;background:#f3f3f3}
        code{padding:0 .2rem}pre{padding:.6rem;overflow-x:auto}table{border-collapse:collapse;margin:.5rem 0}
        th,td{border:1px solid #ccc;padding:.2rem .5rem;text-align:left;vertical-align:top}
        .method{display:inline-block;min-width:3.8rem;font-weight:700;color:#fff;background:#35506b;padding:0 .3rem;text-align:center}
        .get{background:#2b6e3f}.post{background:#35506b}.put{background:#7a5300}.delete{background:#8b1d1d}
        a{color:#0b4f9c}nav ul{columns:2}ul.schema{margin:.2rem 0;padding-left:1.2rem}.muted{color:#555}
        @media print{nav{display:none}}
        """

    /// `style-src` names the stylesheet by its digest, so an injected `<style>` would not apply either.
    static let contentSecurityPolicy: String = {
        let digest = Data(SHA256.hash(data: Data(stylesheet.utf8))).base64EncodedString()
        return "default-src 'none'; style-src 'sha256-\(digest)'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }()

    var html: String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTMLPage.escape(title))</title>
        <style>\(HTMLPage.stylesheet)</style>
        </head>
        <body>
        \(body)
        </body>
        </html>

        """
    }

    var response: Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "text/html; charset=utf-8",
                .contentSecurityPolicy: HTMLPage.contentSecurityPolicy,
                .init("X-Content-Type-Options")!: "nosniff",
                .init("Referrer-Policy")!: "no-referrer",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    static func escape(_ text: String) -> String { HTMLText.escape(text) }

    /// Escaped text with the Markdown the descriptions use: `code` spans, and blank lines between paragraphs.
    static func prose(_ text: String) -> String {
        text.components(separatedBy: "\n\n").map { paragraph in
            let parts = escape(paragraph).split(separator: "`", omittingEmptySubsequences: false)
            let inline = parts.enumerated().map { index, part in index % 2 == 1 ? "<code>\(part)</code>" : String(part) }.joined()
            return "<p>\(inline)</p>"
        }.joined(separator: "\n")
    }
}
