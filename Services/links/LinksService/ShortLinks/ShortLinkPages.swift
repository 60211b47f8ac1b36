import CustodianContracts
import CustodianHTTP
import CustodianQR
import CustodianRPC
import CustodianWeb
import Foundation

/// The answers `GET /l/{code}` gives people: a redirect into the app on a phone, and otherwise small pages
/// that say what to do. Every value a link's creator chose is escaped.
enum ShortLinkPages {
    /// Phones go straight to the app (or, for a universal link without the app, to its web fallback).
    static func redirect(to appURL: String) -> RawHTTPReply {
        RawHTTPReply(
            status: 302,
            headers: [
                "Location": appURL,
                "Cache-Control": "no-store",
                "Referrer-Policy": "no-referrer",
            ])
    }

    /// For a desktop browser: the code to scan or to type into the app, and where to get the app.
    static func landing(_ link: StoredShortLink, code: String, shortURL: String) -> RawHTTPReply {
        let heading = link.title ?? "Open this link in the app"
        // The short link itself as a QR code, so the phone next to the computer can open it.
        let qr = (try? QRCode(encoding: shortURL, errorCorrection: .M))
            .map { SVGRenderer.render(QRLayout(code: $0, moduleSize: 6, margin: 4)) }
            .map { "data:image/svg+xml;base64," + Data($0.utf8).base64EncodedString() }
        let body = """
            <h1>\(HTMLText.escape(heading))</h1>
            <p>This link opens in the app on your phone.</p>
            \(qr.map { "<p>Scan it with your phone's camera:</p>\n<p><img src=\"\($0)\" alt=\"QR code of this link\" width=\"240\" height=\"240\"></p>" } ?? "")
            <p>Or install the app and type this code into it:</p>
            <p class="code">\(HTMLText.escape(code))</p>
            <ul>
            <li><a href="\(HTMLText.escape(link.androidStoreURL))">Get the app on Google Play</a></li>
            <li><a href="\(HTMLText.escape(link.iosStoreURL))">Download the app on the App Store</a></li>
            </ul>
            <p class="small">Is the app installed on this device? <a href="\(HTMLText.escape(link.appURL))">Open it here</a>.</p>
            """
        return page(status: 200, title: heading, body: body)
    }

    static func notFound() -> RawHTTPReply {
        page(
            status: 404, title: "Link not found",
            body: """
                <h1>Link not found</h1>
                <p>There is no link with this code. Check that you opened or typed the whole link; if it still does not
                work, ask the person or organisation that sent it to you for a new one.</p>
                """)
    }

    static func expired() -> RawHTTPReply {
        page(
            status: 410, title: "Link expired",
            body: """
                <h1>This link has expired</h1>
                <p>The link was valid for a limited time only, and that time is over. Ask the person or organisation
                that sent it to you for a new one.</p>
                """)
    }

    /// A complete page. The policy allows nothing but the inline style and the data-URL image: no script runs.
    static func page(status: Int, title: String, body: String) -> RawHTTPReply {
        let html = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="robots" content="noindex">
            <title>\(HTMLText.escape(title))</title>
            <style>
            body { font-family: system-ui, sans-serif; margin: 0; padding: 2rem 1rem; color: #1a1a1a; background: #fafafa; }
            main { max-width: 34rem; margin: 0 auto; background: #fff; padding: 1.5rem 2rem; border-radius: 8px; box-shadow: 0 1px 4px #0002; }
            .code { font-family: ui-monospace, monospace; font-size: 1.6rem; letter-spacing: 0.15em; word-break: break-all; }
            .small { font-size: 0.9rem; color: #555; }
            </style>
            </head>
            <body>
            <main>
            \(body)
            </main>
            </body>
            </html>

            """
        return RawHTTPReply(
            status: status, contentType: "text/html; charset=utf-8", text: html,
            headers: [
                "Cache-Control": "no-store",
                "Content-Security-Policy":
                    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
                "Referrer-Policy": "no-referrer",
                "X-Content-Type-Options": "nosniff",
            ])
    }
}
