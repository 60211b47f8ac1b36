import CustodianContracts
import CustodianRPC
import CustodianSecurity
import Crypto
import Foundation
import Hummingbird

/// A request to the console from a logged-in researcher: the admin it acts for, the session's CSRF token, and the
/// form it posted. Made only by ``ConsoleSessionGate``.
struct ConsoleVisit: Sendable {
    let principal: Principal
    let csrf: String
    let request: Request
    let context: GatewayRequestContext
    /// The posted form's fields (each name's values in order); empty for GET.
    let form: [String: [String]]

    /// The last value of a field: a checkbox's hidden `false` comes before its `true`.
    func field(_ name: String) -> String? { form[name]?.last }

    /// A field's text with surrounding white space gone, or nil when it is empty.
    func text(_ name: String) -> String? {
        guard let value = field(name)?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }

    /// A query parameter's first value, read as the routes read their queries (a GET form's `+` is a space); nil
    /// when it is empty.
    func query(_ name: String) -> String? {
        guard let value = URLEncodedForm.first(name, inQuery: request.uri.query), !value.isEmpty else { return nil }
        return value
    }

    /// A whole number a page's query or a form carries (a list's `after`, an id): nil when it is absent, a 400 page
    /// naming the field and echoing what came when it is not one.
    func number<Number: FixedWidthInteger & Sendable>(_ name: String, label: String? = nil, inQuery: Bool = true) throws -> Number? {
        guard let text = inQuery ? query(name) : text(name) else { return nil }
        guard let number = Number(text) else {
            throw ConsoleFailure(status: .badRequest, message: "\(label ?? name): “\(text)” is not a whole number.")
        }
        return number
    }
}

/// The console's login state: a session cookie that scripts cannot read and other sites cannot send, and a CSRF token
/// derived from it that every form carries back.
struct ConsoleSessionGate: Sendable {
    static let cookieName = "custodian_console"
    /// Before login there is no session to derive a CSRF token from: the login form's token is a random cookie of its own.
    static let loginCookieName = "custodian_console_login"
    let rpc: RPCClient
    let serviceTimeout: Duration
    /// `Secure` on the cookies: on whenever clients reach the gateway over TLS, also through a proxy that terminates it.
    let secureCookies: Bool
    /// The largest form body; more for the COVID import's CSV file.
    static let maximumFormSize = 64 * 1024

    /// An unforgeable token for forms, bound to the session: knowing it does not give the session away.
    static func csrf(forSession token: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("custodian console csrf".utf8), using: SymmetricKey(data: Data(token.utf8)))
        return SecretToken.base64URL(Data(mac))
    }

    func callContext(_ context: GatewayRequestContext, principal: Principal? = nil) -> CallContext {
        var call = CallContext(requestID: context.requestID, deadline: Date().addingTimeInterval(serviceTimeout.seconds), logger: context.logger)
        call.principal = principal
        return call
    }

    /// The visit of a live session, or nil when the visitor has to log in (no cookie, or its session ended).
    /// A POST must carry the session's CSRF token, else it is refused before anything is done.
    func visit(_ request: Request, context: GatewayRequestContext, maximumFormSize: Int = maximumFormSize) async throws -> ConsoleVisit? {
        guard let token = request.cookies[Self.cookieName]?.value, !token.isEmpty else { return nil }
        let principal: Principal
        do {
            principal = try await rpc.call(AuthMethods.consoleSession, input: TokenInput(token: token), context: callContext(context))
        } catch let error as RPCError where error.code == .unauthenticated {
            return nil
        }
        context.admin.record(principal)
        let csrf = Self.csrf(forSession: token)
        var form: [String: [String]] = [:]
        if request.method == .post {
            form = try await ConsoleForm.read(request, limit: maximumFormSize)
            guard let sent = form["csrf"]?.first, SecretToken.constantTimeEquals(Data(sent.utf8), Data(csrf.utf8)) else {
                throw ConsoleFailure.forgedForm
            }
        }
        return ConsoleVisit(principal: principal, csrf: csrf, request: request, context: context, form: form)
    }

    /// The session's cookie: HttpOnly, SameSite=Strict, only for `/console`, ending with the session.
    func sessionCookie(_ session: ConsoleSession) -> Cookie {
        Cookie(
            name: Self.cookieName, value: session.token, maxAge: session.expiresInSeconds, path: "/console",
            secure: secureCookies, httpOnly: true, sameSite: .strict)
    }

    func expiredCookie(_ name: String, path: String) -> Cookie {
        Cookie(
            name: name, value: "", expires: Date(timeIntervalSince1970: 0), maxAge: 0, path: path, secure: secureCookies, httpOnly: true,
            sameSite: .strict)
    }

    func loginCookie(_ value: String) -> Cookie {
        Cookie(
            name: Self.loginCookieName, value: value, maxAge: 3600, path: "/console/login", secure: secureCookies, httpOnly: true, sameSite: .strict)
    }
}

/// Why a console request cannot be answered as asked: a page saying so, with the status that goes with it.
struct ConsoleFailure: Error, Sendable {
    var status: HTTPResponse.Status
    var message: String
    var headers: HTTPFields = [:]

    static let forgedForm = ConsoleFailure(
        status: .forbidden, message: "This form has expired or did not come from this console. Reload the page and try again.")

    /// A service's refusal, in its own words, as the admin API would answer it (a service that is down says when to
    /// try again; a fault of ours says nothing of the inside).
    init(_ error: RPCError) {
        self.init(GatewayError(error, style: .admin))
    }

    init(_ error: GatewayError) {
        status = error.status
        message = error.message
        headers = error.headers
    }

    init(status: HTTPResponse.Status, message: String) {
        self.status = status
        self.message = message
    }
}
