import Crypto
import CustodianContracts
import CustodianRPC
import Foundation
import HTTPTypes
import Hummingbird
import Mustache

/// A console page: one of ``ConsoleTemplates`` rendered into the console's layout, sent with a Content-Security-Policy
/// that loads nothing from elsewhere, runs no script at all, and lets forms post only to this origin.
struct ConsolePage {
    var title: String
    /// The template of the page's content, and what it is rendered with.
    var template: String
    var values: [String: Any] = [:]
    var status: HTTPResponse.Status = .ok
    /// A message that an action worked, or why it did not (shown at the top, announced by screen readers).
    var notice: String?
    var error: String?
    /// Which navigation entry is the current page (``ConsoleTemplates/navigation``); none on the login page.
    var section: String?

    /// The admin whose page this is, shown in the header; set for the time a page is made (``ConsoleRoutes``).
    @TaskLocal static var visitor: Principal?

    static let contentSecurityPolicy: String = {
        let digest = Data(SHA256.hash(data: Data(ConsoleTemplates.stylesheet.utf8))).base64EncodedString()
        return "default-src 'none'; style-src 'sha256-\(digest)'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    }()

    /// The page for a visitor: with the navigation and the logout form (and its CSRF token) when logged in.
    func response(csrf: String?) -> Response {
        Self.html(html(csrf: csrf), status: status)
    }

    func html(csrf: String?) -> String {
        var values = self.values
        values["csrf"] = csrf ?? ""
        let content = ConsoleTemplates.library.render(values, withTemplate: template) ?? ""
        var layout: [String: Any] = [
            "title": title, "content": content, "stylesheet": ConsoleTemplates.stylesheet,
        ]
        if let notice { layout["notice"] = notice }
        if let error { layout["error"] = error }
        if let csrf, let section {
            layout["csrf"] = csrf
            layout["loggedIn"] = true
            let scope = AdminScope(of: Self.visitor)
            // Only what the identity may open: the audit log and the tokens are an owner's.
            layout["navigation"] = ConsoleTemplates.navigation.filter { scope == .owner || !ConsoleTemplates.ownersSections.contains($0.section) }
                .map { entry -> [String: Any] in
                    ["id": entry.id, "href": entry.href, "label": entry.label, "current": entry.section == section]
                }
            if let visitor = Self.visitor {
                layout["identity"] = ["label": visitor.name ?? visitor.id, "scope": scope?.rawValue ?? "no scope"]
            }
        }
        return ConsoleTemplates.library.render(layout, withTemplate: "layout") ?? ""
    }

    /// HTML the console sends, with its policy; never cached, as every page shows live data behind a login.
    static func html(_ html: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8",
                .contentSecurityPolicy: contentSecurityPolicy,
                .cacheControl: "no-store",
                .init("X-Content-Type-Options")!: "nosniff",
                .init("X-Frame-Options")!: "DENY",
                .init("Referrer-Policy")!: "no-referrer",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// 303 See Other: after a form, the browser asks for `location` with GET.
    static func redirect(to location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }
}
