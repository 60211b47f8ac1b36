import CustodianContracts
import CustodianRPC
import CustodianSecurity
import Foundation
import HTTPTypes
import Hummingbird

/// The login form's view model: its own CSRF token (there is no session yet).
struct LoginView: ConsoleView {
    var csrf = ""
}

/// Logging in with an admin token, and out: the session's cookie is made and ended here (``ConsoleSessionGate``).
extension ConsoleRoutes {
    /// Login attempts are guesses at a credential: they count against the same limits as the API's.
    static let loginRoute = Route(
        .post, "/console/login", service: "auth", rpc: AuthMethods.consoleLogin.name, auth: .none, style: .admin,
        rateClass: .credential)

    func loginPage(
        _ request: Request, context: GatewayRequestContext, error: String? = nil, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        // Already logged in: on to the overview. (When `auth` cannot say, the form is shown; logging in then says why not.)
        if error == nil, (try? await gate.visit(request, context: context)) != nil { return ConsoleLayout.redirect(to: "/console") }
        let loginToken = SecretToken.generate(byteCount: 16)
        // The login form's token is the page's own, and there is no navigation.
        var response = ConsolePage(title: "Log in", template: "login", view: LoginView(), status: status, error: error).response(csrf: loginToken)
        response.setCookie(gate.loginCookie(loginToken))
        return response
    }

    func logIn(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        let client = ClientAddress.of(peer: context.remoteAddress, headers: request.headers, trustedProxies: rateLimits.trustedProxies)
        do {
            try rateLimits.admit(Self.loginRoute, request: request, client: client)
            let form = try await ConsoleForm.read(request, limit: ConsoleSessionGate.maximumFormSize)
            guard let expected = request.cookies[ConsoleSessionGate.loginCookieName]?.value, !expected.isEmpty,
                let sent = form["csrf"]?.last, SecretToken.constantTimeEquals(Data(sent.utf8), Data(expected.utf8))
            else {
                return try await loginPage(request, context: context, error: ConsoleFailure.forgedForm.message, status: .forbidden)
            }
            let token = form["token"]?.last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            guard !token.isEmpty else { return try await loginPage(request, context: context, error: "Enter an admin token.", status: .badRequest) }
            let session: ConsoleSession
            do {
                session = try await gate.rpc.call(AuthMethods.consoleLogin, input: TokenInput(token: token), context: gate.callContext(context))
            } catch let error as RPCError where error.code == .unauthenticated {
                rateLimits.recordAuthenticationFailure(Self.loginRoute, client: client)
                return try await loginPage(
                    request, context: context, error: "That admin token is not valid (or has been revoked).", status: .unauthorized)
            }
            var response = ConsoleLayout.redirect(to: "/console")
            response.setCookie(gate.sessionCookie(session))
            response.setCookie(gate.expiredCookie(ConsoleSessionGate.loginCookieName, path: "/console/login"))
            return response
        } catch let error as GatewayError {
            return failurePage(ConsoleFailure(error), csrf: nil)
        } catch let failure as ConsoleFailure {
            return failurePage(failure, csrf: nil)
        } catch let error as RPCError {
            return failurePage(ConsoleFailure(error), csrf: nil)
        }
    }

    func logOut(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        do {
            if try await gate.visit(request, context: context) != nil, let token = request.cookies[ConsoleSessionGate.cookieName]?.value {
                _ = try await gate.rpc.call(AuthMethods.consoleLogout, input: TokenInput(token: token), context: gate.callContext(context))
            }
        } catch let failure as ConsoleFailure {
            return failurePage(failure, csrf: nil)
        } catch let error as RPCError {
            return failurePage(ConsoleFailure(error), csrf: nil)
        }
        var response = ConsoleLayout.redirect(to: "/console/login")
        response.setCookie(gate.expiredCookie(ConsoleSessionGate.cookieName, path: "/console"))
        return response
    }
}
