import Crypto
import CustodianContracts
import CustodianRPC
import Foundation
import HTTPTypes
import Hummingbird

/// A page's view model: what its template shows (stored properties, read by name), and the session's CSRF token for its
/// forms, which ``ConsolePage`` sets.
protocol ConsoleView {
    var csrf: String { get set }
}

/// A console page: one of ``ConsoleTemplates`` rendered with its view model into the console's layout, sent with a
/// Content-Security-Policy that loads nothing from elsewhere, runs no script at all, and lets forms post only to this origin.
struct ConsolePage<View: ConsoleView> {
    var title: String
    /// The template of the page's content, and what it is rendered with.
    var template: String
    var view: View
    var status: HTTPResponse.Status = .ok
    /// A message that an action worked, or why it did not (shown at the top, announced by screen readers).
    var notice: String?
    var error: String?
    /// Which navigation entry is the current page (``ConsoleTemplates/navigation``); none on the login page.
    var section: String?

    /// The page for a visitor: with the navigation and the logout form (and its CSRF token) when logged in.
    func response(csrf: String?) -> Response {
        ConsoleLayout.html(html(csrf: csrf), status: status)
    }

    func html(csrf: String?) -> String {
        var view = self.view
        view.csrf = csrf ?? ""
        var layout = ConsoleLayout(title: title, content: ConsoleTemplates.render(view, template), notice: notice, error: error)
        if let csrf, let section { layout.logIn(csrf: csrf, section: section) }
        return ConsoleTemplates.render(layout, "layout")
    }
}

/// The layout's view model: the page's title and content, the messages above it, and for a logged-in admin the navigation
/// to what their scope may open and who they are.
struct ConsoleLayout {
    var title: String
    var content: String
    var stylesheet = ConsoleTemplates.stylesheet
    var notice: String?
    var error: String?
    var loggedIn = false
    var csrf = ""
    var navigation: [Entry] = []
    var identity: Identity?

    struct Entry {
        var id: String
        var href: String
        var label: String
        var current: Bool
    }

    struct Identity {
        var label: String
        var scope: String
    }

    /// The admin whose page this is, shown in the header; set for the time a page is made (``ConsoleRoutes``).
    @TaskLocal static var visitor: Principal?

    static let contentSecurityPolicy: String = {
        let digest = Data(SHA256.hash(data: Data(ConsoleTemplates.stylesheet.utf8))).base64EncodedString()
        return "default-src 'none'; style-src 'sha256-\(digest)'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    }()

    mutating func logIn(csrf: String, section: String) {
        self.csrf = csrf
        loggedIn = true
        let scope = AdminScope(of: Self.visitor)
        // Only what the identity may open: the audit log and the tokens are an owner's.
        navigation = ConsoleTemplates.navigation.filter { scope == .owner || !ConsoleTemplates.ownersSections.contains($0.section) }
            .map { Entry(id: $0.id, href: $0.href, label: $0.label, current: $0.section == section) }
        if let visitor = Self.visitor {
            identity = Identity(label: visitor.name ?? visitor.id, scope: scope?.rawValue ?? "no scope")
        }
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

/// The message page (a refusal, a page that is not there): the text, and where to go back to.
struct MessageView: ConsoleView {
    var message: String
    var back = "/console"
    var backLabel = "Back to the overview"
    var csrf = ""
}
