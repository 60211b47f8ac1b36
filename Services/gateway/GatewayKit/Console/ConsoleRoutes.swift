import CustodianContracts
import CustodianHTTP
import CustodianRPC
import Foundation
import HTTPTypes
import Hummingbird

/// `/console`: the researcher console's pages, made on the server from the admin methods' answers. Every page but the
/// login needs a live session; every form posts its CSRF token (``ConsoleSessionGate``). Each section's pages are in
/// a file of their own (ConsoleAccounts.swift, ConsoleVault.swift, …); this is the table of all of them.
struct ConsoleRoutes: Sendable {
    let admin: ConsoleAdmin
    let gate: ConsoleSessionGate
    let health: HealthRoutes
    let metrics: GatewayMetrics
    let rateLimits: RouteRateLimits

    /// A page behind the login, by method and path: what answers it, and how large a form it takes.
    struct Page: Sendable {
        var method: HTTPRequest.Method
        var path: String
        var maximumFormSize = ConsoleSessionGate.maximumFormSize
        var handler: @Sendable (ConsoleVisit) async throws -> Response
    }

    /// Every page behind the login.
    var pages: [Page] {
        [
            Page(method: .get, path: "/console", handler: overview),
            Page(method: .get, path: "/console/twomes/accounts") { try await accounts($0) },
            Page(method: .post, path: "/console/twomes/accounts", handler: createAccount),
            Page(method: .get, path: "/console/twomes/accounts/{pseudonym}", handler: participant),
            Page(method: .post, path: "/console/twomes/accounts/{pseudonym}/activation", handler: reissueActivation),
            Page(method: .get, path: "/console/twomes/cohort") { try await cohort($0) },
            Page(method: .post, path: "/console/twomes/cohort", maximumFormSize: Self.cohortFormSize, handler: enrolCohort),
            Page(method: .get, path: "/console/twomes/devices") { try await devices($0) },
            Page(method: .get, path: "/console/twomes/devices/{name}", handler: devicePage),
            Page(method: .get, path: "/console/twomes/silent", handler: silentDevices),
            Page(method: .post, path: "/console/twomes/devices", handler: registerDevice),
            Page(method: .post, path: "/console/twomes/labels", handler: labelSheet),
            Page(method: .get, path: "/console/twomes/export") { try await export($0) },
            Page(method: .get, path: "/console/twomes/export/download", handler: downloadMeasurements),
            Page(method: .get, path: "/console/opensense") { try await openSense($0) },
            Page(method: .get, path: "/console/opensense/devices/{device_id}", handler: openSenseDevice),
            Page(method: .post, path: "/console/opensense/config", handler: publishConfiguration),
            Page(method: .get, path: "/console/opensense/batches", handler: downloadBatches),
            Page(method: .get, path: "/console/vault") { try await vault($0) },
            Page(method: .post, path: "/console/vault/users", handler: createVaultUser),
            Page(method: .post, path: "/console/vault/modules", handler: createModule),
            Page(method: .post, path: "/console/vault/repos", handler: createRepo),
            Page(method: .post, path: "/console/vault/permissions", handler: grant),
            Page(method: .get, path: "/console/vault/module-qr", handler: moduleQR),
            Page(method: .get, path: "/console/consumers") { try await consumers($0) },
            Page(method: .post, path: "/console/consumers", handler: createConsumer),
            Page(method: .get, path: "/console/links") { try await links($0) },
            Page(method: .post, path: "/console/links", handler: createLink),
            Page(method: .get, path: "/console/lemon") {
                try await lemon($0, figures: ConsoleListQuery($0, names: ["country", "from", "to", "after", "limit"]))
            },
            // A CSV of daily figures is larger than any other form: the admin route's own limit.
            Page(method: .post, path: "/console/lemon/covid", maximumFormSize: 6 * 1024 * 1024 + 64 * 1024, handler: importCovid),
            Page(method: .get, path: "/console/lemon/submissions", handler: downloadSubmissions),
            Page(method: .get, path: "/console/audit") { try await audit($0) },
            Page(method: .get, path: "/console/audit/download", handler: downloadAudit),
            Page(method: .get, path: "/console/tokens") { try await tokens($0) },
            Page(method: .post, path: "/console/tokens", handler: createToken),
            Page(method: .post, path: "/console/tokens/revoke", handler: revokeToken),
            Page(method: .get, path: "/console/erasure") { try await erasure($0) },
            Page(method: .post, path: "/console/erasure", handler: erase),
            // Anything else under /console: a page saying so, in the console's look, rather than the admin API's JSON 404.
            Page(method: .get, path: "/console/**") { visit in
                throw ConsoleFailure(status: .notFound, message: "There is no console page at \(visit.request.uri.path).")
            },
        ]
    }

    func add(to router: Router<GatewayRequestContext>) {
        router.get("/console/login") { request, context in try await loginPage(request, context: context) }
        router.post("/console/login") { request, context in try await logIn(request, context: context) }
        router.post("/console/logout") { request, context in try await logOut(request, context: context) }
        for page in pages { add(page, to: router) }
    }

    /// Without a live session the visitor is sent to log in; a refusal becomes a page that says what went wrong, with
    /// the status and (for a service that is down) the Retry-After it came with.
    private func add(_ page: Page, to router: Router<GatewayRequestContext>) {
        router.on(RouterPath(page.path), method: page.method) { request, context in
            var visit: ConsoleVisit?
            do {
                visit = try await gate.visit(request, context: context, maximumFormSize: page.maximumFormSize)
                guard let visit else { return ConsoleLayout.redirect(to: "/console/login") }
                return try await ConsoleLayout.$visitor.withValue(visit.principal) { try await page.handler(visit) }
            } catch let failure as ConsoleFailure {
                return ConsoleLayout.$visitor.withValue(visit?.principal) { failurePage(failure, csrf: visit?.csrf) }
            } catch let error as RPCError {
                return ConsoleLayout.$visitor.withValue(visit?.principal) { failurePage(ConsoleFailure(error), csrf: visit?.csrf) }
            }
        }
    }

    func failurePage(_ failure: ConsoleFailure, csrf: String?) -> Response {
        let title =
            switch failure.status.code {
            case 403: "Not allowed"
            case 404: "Not found"
            case 429: "Too many requests"
            case 503: "Temporarily unavailable"
            case 500...: "Server error"
            default: "Cannot do that"
            }
        var response = ConsolePage(
            title: title, template: "message", view: MessageView(message: failure.message), status: failure.status,
            section: csrf == nil ? nil : "none"
        ).response(csrf: csrf)
        response.headers.append(contentsOf: failure.headers)
        return response
    }

    /// Runs a form's call; a refusal of the form (a 4xx) shows its page again with the reason.
    func form(_ action: () async throws -> Response, orShow page: (ConsoleFailure) async throws -> Response) async throws -> Response {
        do {
            return try await action()
        } catch let failure as ConsoleFailure where failure.status.code < 500 {
            return try await page(failure)
        }
    }

    /// An export route's download, with the query fields its form has, passed as typed for the service to check; a
    /// refusal shows the form's page again.
    func download<Input>(
        _ visit: ConsoleVisit, _ method: RoutedMethod<Input, StreamPage>, names: [String],
        orShow page: (ConsoleFailure) async throws -> Response
    ) async throws -> Response {
        var query: [String: [String]] = [:]
        for name in names { if let value = visit.query(name) { query[name] = [value] } }
        return try await form({ try await admin.response(method, forwarding: HTTPInput(query: query), for: visit) }, orShow: page)
    }
}
