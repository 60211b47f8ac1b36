import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianSecurity
import Foundation
import HTTPTypes
import Hummingbird

/// `/console`: the researcher console's pages, made on the server from the admin routes' answers. Every page but the
/// login needs a live session; every form posts its CSRF token (``ConsoleSessionGate``).
struct ConsoleRoutes: Sendable {
    let admin: ConsoleAdmin
    let gate: ConsoleSessionGate
    let health: HealthRoutes
    let metrics: GatewayMetrics
    let rateLimits: RouteRateLimits

    /// Login attempts are guesses at a credential: they count against the same limits as the API's.
    static let loginRoute = Route(
        .post, "/console/login", service: "auth", rpc: AuthMethods.consoleLogin.name, auth: .none, style: .admin,
        rateClass: .credential)

    func add(to router: Router<GatewayRequestContext>) {
        router.get("/console/login") { request, context in try await loginPage(request, context: context) }
        router.post("/console/login") { request, context in try await logIn(request, context: context) }
        router.post("/console/logout") { request, context in try await logOut(request, context: context) }

        page(router, .get, "/console", overview)
        page(router, .get, "/console/twomes/accounts", accounts)
        page(router, .post, "/console/twomes/accounts", createAccount)
        page(router, .get, "/console/twomes/devices") { try await devices($0) }
        page(router, .post, "/console/twomes/devices", registerDevice)
        page(router, .post, "/console/twomes/labels", labelSheet)
        page(router, .get, "/console/twomes/export") { try await export($0) }
        page(router, .get, "/console/twomes/export/download") { visit in
            try await download(visit, route: "/admin/v1/measurements", names: ["format", "pseudonym", "device", "property", "from", "to"]) { error in
                try await export(visit, error: error)
            }
        }
        page(router, .get, "/console/opensense") { try await openSense($0) }
        page(router, .post, "/console/opensense/config", publishConfiguration)
        page(router, .get, "/console/opensense/batches") { visit in
            try await download(visit, route: "/admin/v1/opensense/batches", names: ["format"]) { error in try await openSense(visit, error: error) }
        }
        page(router, .get, "/console/vault") { try await vault($0) }
        page(router, .post, "/console/vault/users", createVaultUser)
        page(router, .post, "/console/vault/modules", createModule)
        page(router, .post, "/console/vault/repos", createRepo)
        page(router, .post, "/console/vault/permissions", grant)
        page(router, .get, "/console/vault/module-qr", moduleQR)
        page(router, .get, "/console/consumers") { try await consumers($0) }
        page(router, .post, "/console/consumers", createConsumer)
        page(router, .get, "/console/links") { try await links($0) }
        page(router, .post, "/console/links", createLink)
        page(router, .get, "/console/lemon") { try await lemon($0) }
        // A CSV of daily figures is larger than any other form: the admin route's own limit.
        page(router, .post, "/console/lemon/covid", maximumFormSize: 6 * 1024 * 1024 + 64 * 1024, importCovid)
        page(router, .get, "/console/lemon/submissions") { visit in
            try await download(visit, route: "/admin/v1/statistics/submissions", names: ["format", "from", "to"]) { error in
                try await lemon(visit, error: error)
            }
        }
        addAdministration(router)
        addErasure(router)
        // Anything else under /console: a page saying so, in the console's look, rather than the admin API's JSON 404.
        page(router, .get, "/console/**") { visit in
            throw ConsoleFailure(status: .notFound, message: "There is no console page at \(visit.request.uri.path).")
        }
    }

    /// A page behind the login: without a live session the visitor is sent to log in; a refusal becomes a page
    /// that says what went wrong, with the status and (for a service that is down) the Retry-After it came with.
    func page(
        _ router: Router<GatewayRequestContext>, _ method: HTTPRequest.Method, _ path: String,
        maximumFormSize: Int = ConsoleSessionGate.maximumFormSize,
        _ handler: @escaping @Sendable (ConsoleVisit) async throws -> Response
    ) {
        router.on(RouterPath(path), method: method) { request, context in
            var visit: ConsoleVisit?
            do {
                visit = try await gate.visit(request, context: context, maximumFormSize: maximumFormSize)
                guard let visit else { return ConsolePage.redirect(to: "/console/login") }
                return try await ConsolePage.$visitor.withValue(visit.principal) { try await handler(visit) }
            } catch let failure as ConsoleFailure {
                return ConsolePage.$visitor.withValue(visit?.principal) { failurePage(failure, csrf: visit?.csrf) }
            } catch let error as RPCError {
                return ConsolePage.$visitor.withValue(visit?.principal) { failurePage(ConsoleFailure(error), csrf: visit?.csrf) }
            }
        }
    }

    private func failurePage(_ failure: ConsoleFailure, csrf: String?) -> Response {
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
            title: title, template: "message", values: ["message": failure.message, "back": "/console", "backLabel": "Back to the overview"],
            status: failure.status, section: csrf == nil ? nil : "none"
        ).response(csrf: csrf)
        response.headers.append(contentsOf: failure.headers)
        return response
    }

    // MARK: Login

    private func loginPage(
        _ request: Request, context: GatewayRequestContext, error: String? = nil, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        // Already logged in: on to the overview. (When `auth` cannot say, the form is shown; logging in then says why not.)
        if error == nil, (try? await gate.visit(request, context: context)) != nil { return ConsolePage.redirect(to: "/console") }
        let loginToken = SecretToken.generate(byteCount: 16)
        // The login form's token is the page's own (there is no session yet), and there is no navigation.
        var layout: [String: Any] = [
            "title": "Log in", "stylesheet": ConsoleTemplates.stylesheet,
            "content": ConsoleTemplates.library.render(["csrf": loginToken], withTemplate: "login") ?? "",
        ]
        if let error { layout["error"] = error }
        var response = ConsolePage.html(ConsoleTemplates.library.render(layout, withTemplate: "layout") ?? "", status: status)
        response.setCookie(gate.loginCookie(loginToken))
        return response
    }

    private func logIn(_ request: Request, context: GatewayRequestContext) async throws -> Response {
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
            var response = ConsolePage.redirect(to: "/console")
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

    private func logOut(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        do {
            if try await gate.visit(request, context: context) != nil, let token = request.cookies[ConsoleSessionGate.cookieName]?.value {
                _ = try await gate.rpc.call(AuthMethods.consoleLogout, input: TokenInput(token: token), context: gate.callContext(context))
            }
        } catch let failure as ConsoleFailure {
            return failurePage(failure, csrf: nil)
        } catch let error as RPCError {
            return failurePage(ConsoleFailure(error), csrf: nil)
        }
        var response = ConsolePage.redirect(to: "/console/login")
        response.setCookie(gate.expiredCookie(ConsoleSessionGate.cookieName, path: "/console"))
        return response
    }

    // MARK: Overview

    private func overview(_ visit: ConsoleVisit) async throws -> Response {
        async let checks = health.checks(requestID: visit.context.requestID)
        async let counts = self.counts(visit)
        let traffic = metrics.recent.lastHour()
        let healthRows = await checks.sorted { $0.key < $1.key }.map {
            ["service": $0.key, "status": $0.value, "ok": $0.value == "ok"] as [String: Any]
        }
        return ConsolePage(
            title: "Overview", template: "overview",
            values: [
                "counts": await counts, "health": healthRows,
                "traffic": [
                    "requests": traffic.requests, "clientErrors": traffic.clientErrors, "serverErrors": traffic.serverErrors,
                    "since": Self.time(traffic.since),
                ],
            ],
            section: "overview"
        ).response(csrf: visit.csrf)
    }

    /// How many of each there are, by the first page of each list (a count beyond it shows as "1000+"); a service
    /// that does not answer shows "?" rather than failing the page.
    private func counts(_ visit: ConsoleVisit) async -> [[String: Any]] {
        func count(_ path: String, _ key: String, _ query: [String: [String]] = ["limit": ["1000"]]) async -> String {
            guard let answer = try? await admin.json(.get, path, HTTPInput(query: query), for: visit), case .array(let items)? = answer[key] else {
                return "?"
            }
            if let next = answer["next_after"], !next.isNull { return "\(items.count)+" }
            return String(items.count)
        }
        async let accounts = count("/admin/v1/accounts", "accounts")
        async let devices = count("/admin/v1/devices", "devices")
        async let openSense = count("/admin/v1/opensense/devices", "devices", [:])
        async let vaultUsers = count("/admin/v1/vault/users", "users")
        async let consumers = count("/admin/v1/api-consumers", "consumers", [:])
        async let submissions: String = {
            guard let answer = try? await admin.json(.get, "/admin/v1/statistics/submissions/counts", for: visit),
                case .array(let rows)? = answer["counts"]
            else { return "?" }
            return String(
                rows.reduce(0) { total, row in if case .int(let count)? = row["count"] { return total + Int(clamping: count) } else { return total } }
            )
        }()
        return [
            ["label": "Twomes accounts", "value": await accounts, "href": "/console/twomes/accounts"],
            ["label": "Twomes devices", "value": await devices, "href": "/console/twomes/devices"],
            ["label": "OpenSense devices", "value": await openSense, "href": "/console/opensense"],
            ["label": "Vault users", "value": await vaultUsers, "href": "/console/vault"],
            ["label": "API consumers", "value": await consumers, "href": "/console/consumers"],
            ["label": "LEMON submissions", "value": await submissions, "href": "/console/lemon"],
        ]
    }

    // MARK: Twomes

    private func accounts(_ visit: ConsoleVisit) async throws -> Response {
        var query: [String: [String]] = ["limit": ["100"]]
        if let after = visit.query("after") { query["after"] = [after] }
        let answer = try await admin.json(.get, "/admin/v1/accounts", HTTPInput(query: query), for: visit)
        let accounts = (answer["accounts"]?.arrayValue ?? []).map { account -> [String: Any] in
            var values = account.templateValue as? [String: Any] ?? [:]
            values["activated"] = account["activated_on"]?.displayText ?? "not yet"
            values["devices"] = (account["devices"]?.arrayValue ?? []).map { device -> [String: Any] in
                var values = device.templateValue as? [String: Any] ?? [:]
                values["seen"] = device["last_seen"]?.displayText.map { "last seen \($0)" } ?? "no measurements yet"
                return values
            }
            return values
        }
        // An owner reaches each participant's audit history from their pseudonym.
        return ConsolePage(
            title: "Twomes accounts", template: "accounts",
            values: [
                "accounts": accounts, "next": answer["next_after"]?.templateValue ?? false,
                "owner": AdminScope(of: visit.principal) == .owner,
            ], section: "accounts"
        )
        .response(csrf: visit.csrf)
    }

    private func createAccount(_ visit: ConsoleVisit) async throws -> Response {
        let account = try await admin.json(.post, "/account", HTTPInput(body: .object([:])), for: visit)
        guard let link = account["firebase_url"]?.stringValue, let pseudonym = account["pseudonym"]?.templateValue else {
            throw ConsoleFailure(status: .badGateway, message: "The new account's answer had no activation link.")
        }
        let qr = try await admin.raw(.get, "/admin/v1/qr", HTTPInput(query: ["data": [link], "format": ["png"], "size": ["6"]]), for: visit)
        return ConsolePage(
            title: "Account created", template: "account-created",
            values: ["pseudonym": pseudonym, "link": link, "qr": ConsoleAdmin.dataURL(qr), "qrSize": 240],
            status: .created, section: "accounts"
        ).response(csrf: visit.csrf)
    }

    private func devices(
        _ visit: ConsoleVisit, form: [String: String] = [:], notice: String? = nil, error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        var query: [String: [String]] = ["limit": ["200"]]
        if let after = visit.query("after") { query["after"] = [after] }
        async let typesAnswer = admin.json(.get, "/admin/v1/device-types", for: visit)
        async let devicesAnswer = admin.json(.get, "/admin/v1/devices", HTTPInput(query: query), for: visit)
        let chosenType = form["device_type"]
        let types =
            (try await typesAnswer)["device_types"]?.arrayValue?.map { type -> [String: Any] in
                var values = type.templateValue as? [String: Any] ?? [:]
                values["selected"] = type["name"]?.stringValue == chosenType
                return values
            } ?? []
        let answer = try await devicesAnswer
        let devices = (answer["devices"]?.arrayValue ?? []).map { device -> [String: Any] in
            var values = device.templateValue as? [String: Any] ?? [:]
            values["account"] = device["pseudonym"]?.templateValue.map { "\($0)" } ?? "not attached"
            values["activated"] = device["activated_on"]?.displayText ?? "not yet"
            values["seen"] = device["last_seen"]?.displayText ?? "never"
            values["printed"] = device["label_printed_on"]?.displayText == nil ? "no" : "yes"
            return values
        }
        return ConsolePage(
            title: "Devices", template: "devices",
            values: ["types": types, "devices": devices, "form": form, "next": answer["next_after"]?.templateValue ?? false],
            status: status, notice: notice ?? visit.query("registered").map { "Device \($0) is registered." }, error: error, section: "devices"
        ).response(csrf: visit.csrf)
    }

    private func registerDevice(_ visit: ConsoleVisit) async throws -> Response {
        var body: [String: JSONValue] = [:]
        var entered: [String: String] = [:]
        for name in ["name", "device_type", "activation_token"] {
            if let value = visit.text(name) {
                body[name] = .string(value)
                entered[name] = value
            }
        }
        do {
            let device = try await admin.json(.post, "/device", HTTPInput(body: .object(body)), for: visit)
            let name = device["name"]?.stringValue ?? entered["name"] ?? ""
            return ConsolePage.redirect(to: "/console/twomes/devices?registered=\(Self.queryEscaped(name))")
        } catch let failure as ConsoleFailure where failure.status.code < 500 {
            return try await devices(visit, form: entered, error: failure.message, status: failure.status)
        }
    }

    private func labelSheet(_ visit: ConsoleVisit) async throws -> Response {
        let unprinted = visit.field("unprinted") == "true"
        let names = visit.form["name"] ?? []
        if !unprinted && names.isEmpty {
            return try await devices(
                visit, error: "Select the devices whose labels to print, or print every device not printed yet.", status: .badRequest)
        }
        var query: [String: [String]] = ["transport": [visit.field("transport") ?? "ble"]]
        if unprinted { query["unprinted"] = ["true"] } else { query["name"] = names }
        do {
            return try await admin.response(.get, "/admin/v1/device-labels", HTTPInput(query: query), for: visit)
        } catch let failure as ConsoleFailure where failure.status.code < 500 {
            return try await devices(visit, error: failure.message, status: failure.status)
        }
    }

    private func export(_ visit: ConsoleVisit, error: ConsoleFailure? = nil) async throws -> Response {
        let types =
            try await admin.json(.get, "/admin/v1/device-types", for: visit)["device_types"]?.arrayValue?.map { type -> [String: Any] in
                var values = type.templateValue as? [String: Any] ?? [:]
                values["properties"] = (type["properties"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }.joined(separator: ", ")
                return values
            } ?? []
        return ConsolePage(
            title: "Measurements", template: "export", values: ["types": types], status: error?.status ?? .ok,
            error: error?.message, section: "export"
        ).response(csrf: visit.csrf)
    }

    /// An export route's download, with the query fields the form has; a refusal shows the form's page again.
    func download(
        _ visit: ConsoleVisit, route: String, names: [String],
        orShow page: @Sendable (ConsoleFailure) async throws -> Response
    ) async throws -> Response {
        var query: [String: [String]] = [:]
        for name in names { if let value = visit.query(name) { query[name] = [value] } }
        do {
            return try await admin.response(.get, route, HTTPInput(query: query), for: visit)
        } catch let failure as ConsoleFailure where failure.status.code < 500 {
            return try await page(failure)
        }
    }

    // MARK: OpenSense

    /// The configuration's fields as the editor shows them, in the order the server checks them.
    static let configurationFields: [(key: String, label: String, kind: String)] = [
        ("name", "Name", "text"), ("baseUrl", "Base URL", "text"), ("dataUploadOnWifiOnly", "Upload on Wi-Fi only", "checkbox"),
        ("configUpdatePeriod", "Configuration update period (seconds)", "text"), ("dataArchivePeriod", "Data archive period (seconds)", "text"),
        ("dataUploadPeriod", "Data upload period (seconds)", "text"), ("maxDataFileSizeKb", "Largest data file (KiB)", "text"),
        ("dataRequests", "Data requests (JSON: probe name → list of {\"interval\": seconds})", "textarea"),
    ]

    private func openSense(
        _ visit: ConsoleVisit, error: ConsoleFailure? = nil, entered: [String: String]? = nil,
        fieldError: (key: String, message: String)? = nil, notice: String? = nil
    ) async throws -> Response {
        async let devicesAnswer = admin.json(.get, "/admin/v1/opensense/devices", for: visit)
        async let configuration = admin.json(.get, "/config", for: visit)
        let current = try await configuration
        let fields = Self.configurationFields.map { field -> [String: Any] in
            let value = entered?[field.key] ?? Self.editable(current[field.key])
            var values: [String: Any] = ["key": field.key, "label": field.label, field.kind: true, "value": value, "checked": value == "true"]
            if fieldError?.key == field.key { values["error"] = fieldError?.message }
            return values
        }
        let devices =
            (try await devicesAnswer)["devices"]?.arrayValue?.map { device -> [String: Any] in
                var values = device.templateValue as? [String: Any] ?? [:]
                values["last"] = device["last_upload"]?.displayText ?? "none yet"
                return values
            } ?? []
        return ConsolePage(
            title: "OpenSense", template: "opensense",
            values: ["devices": devices, "fields": fields, "version": current["version"]?.templateValue ?? false],
            status: error?.status ?? .ok, notice: notice, error: error?.message, section: "opensense"
        ).response(csrf: visit.csrf)
    }

    /// A configuration value as its field shows it: text as it is, numbers and booleans as written, JSON pretty-printed.
    static func editable(_ value: JSONValue?) -> String {
        switch value {
        case .string(let text)?: text
        case .int(let number)?: String(number)
        case .bool(let flag)?: flag ? "true" : "false"
        case let value? where !value.isNull: value.prettyJSON
        default: ""
        }
    }

    private func publishConfiguration(_ visit: ConsoleVisit) async throws -> Response {
        var entered: [String: String] = [:]
        var document: [String: JSONValue] = [:]
        for field in Self.configurationFields {
            let text = (visit.field(field.key) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            entered[field.key] = text
            switch field.kind {
            case "checkbox":
                document[field.key] = .bool(text == "true")
            case "textarea":
                guard let value = try? JSONValue.parse(Data(text.utf8), maximumDepth: RouteForwarder.maximumJSONDepth) else {
                    return try await openSense(
                        visit, error: ConsoleFailure(status: .unprocessableContent, message: "The configuration was not published."),
                        entered: entered, fieldError: (field.key, "This is not valid JSON."))
                }
                document[field.key] = value
            default:
                // Numbers go as numbers; anything else as the text it is, for the server to say what is wrong with it.
                if let number = Int64(text), field.key != "name", field.key != "baseUrl" {
                    document[field.key] = .int(number)
                } else if !text.isEmpty {
                    document[field.key] = .string(text)
                }
            }
        }
        do {
            let stored = try await admin.json(.put, "/admin/v1/opensense/config", HTTPInput(body: .object(document)), for: visit)
            let version = stored["version"]?.templateValue.map { " as version \($0)" } ?? ""
            return try await openSense(visit, notice: "The configuration is published\(version).")
        } catch let failure as ConsoleFailure where failure.status.code < 500 {
            // The server names the field first: `baseUrl: baseUrl must be an http(s) URL`.
            let parts = failure.message.split(separator: ":", maxSplits: 1)
            let key = parts.first.map { String($0.split(separator: ".").first ?? $0) }
            if let key, parts.count == 2, Self.configurationFields.contains(where: { $0.key == key }) {
                return try await openSense(
                    visit, error: ConsoleFailure(status: failure.status, message: "The configuration was not published."),
                    entered: entered, fieldError: (key, parts[1].trimmingCharacters(in: .whitespaces)))
            }
            return try await openSense(visit, error: failure, entered: entered)
        }
    }

    // MARK: Vault

    private func vault(
        _ visit: ConsoleVisit, created: [String: Any]? = nil, notice: String? = nil, error: ConsoleFailure? = nil
    ) async throws -> Response {
        var query: [String: [String]] = ["limit": ["100"]]
        if let after = visit.query("after") { query["after"] = [after] }
        let answer = try await admin.json(.get, "/admin/v1/vault/users", HTTPInput(query: query), for: visit)
        let users = (answer["users"]?.arrayValue ?? []).map { user -> [String: Any] in
            var values = user.templateValue as? [String: Any] ?? [:]
            values["modules"] = (user["modules"]?.arrayValue ?? []).map { module -> [String: Any] in
                var values = module.templateValue as? [String: Any] ?? [:]
                values["permissions"] = (module["permissions"]?.arrayValue ?? []).map { permission -> [String: Any] in
                    let access = [permission["read"] == .bool(true) ? "read" : nil, permission["write"] == .bool(true) ? "write" : nil].compactMap {
                        $0
                    }
                    return ["repo": permission["repo"]?.stringValue ?? "", "access": access.isEmpty ? "none" : access.joined(separator: "+")]
                }
                return values
            }
            return values
        }
        var values: [String: Any] = ["users": users, "next": answer["next_after"]?.templateValue ?? false]
        if let created { values["created"] = created }
        return ConsolePage(
            title: "Data vault", template: "vault", values: values, status: error?.status ?? .ok,
            notice: notice, error: error?.message, section: "vault"
        ).response(csrf: visit.csrf)
    }

    /// Runs a vault form's call; a refusal shows the vault page again with the reason.
    private func vaultForm(_ visit: ConsoleVisit, _ action: () async throws -> Response) async throws -> Response {
        do {
            return try await action()
        } catch let failure as ConsoleFailure where failure.status.code < 500 {
            return try await vault(visit, error: failure)
        }
    }

    private func createVaultUser(_ visit: ConsoleVisit) async throws -> Response {
        try await vaultForm(visit) {
            let body: JSONValue = .object([
                "email": .string(visit.text("email") ?? ""), "name": .string(visit.text("name") ?? ""),
                "password": .string(visit.field("password") ?? ""),
            ])
            let user = try await admin.json(.post, "/admin/v1/vault/users", HTTPInput(body: body), for: visit)
            return try await vault(visit, created: Self.created("User created", user, ["id"]))
        }
    }

    private func createModule(_ visit: ConsoleVisit) async throws -> Response {
        try await vaultForm(visit) {
            var body: [String: JSONValue] = ["name": .string(visit.text("name") ?? ""), "url": .string(visit.text("url") ?? "")]
            if let description = visit.text("description") { body["description"] = .string(description) }
            let module = try await admin.json(
                .post, "/admin/v1/vault/users/{user_id}/modules",
                HTTPInput(body: .object(body), path: ["user_id": visit.text("user_id") ?? ""]), for: visit)
            var created = Self.created("Module created", module, ["id", "name", "uid", "secret"], secrets: ["secret"])
            if let id = module["id"]?.templateValue {
                let qr = try await admin.raw(.get, "/admin/v1/vault/modules/{module_id}/qr", HTTPInput(path: ["module_id": "\(id)"]), for: visit)
                created["qr"] = ConsoleAdmin.dataURL(qr)
                created["qrSize"] = 240
            }
            return try await vault(visit, created: created)
        }
    }

    private func createRepo(_ visit: ConsoleVisit) async throws -> Response {
        try await vaultForm(visit) {
            let repo = try await admin.json(
                .post, "/admin/v1/vault/users/{user_id}/repos",
                HTTPInput(
                    body: .object(["identifier": .string(visit.text("identifier") ?? "")]),
                    path: ["user_id": visit.text("user_id") ?? ""]), for: visit)
            return try await vault(visit, created: Self.created("Repo created", repo, ["id", "identifier", "public_key"]))
        }
    }

    private func grant(_ visit: ConsoleVisit) async throws -> Response {
        try await vaultForm(visit) {
            let body: JSONValue = .object([
                "repo": .string(visit.text("repo") ?? ""), "read": .bool(visit.field("read") == "true"),
                "write": .bool(visit.field("write") == "true"),
            ])
            let answer = try await admin.json(
                .post, "/admin/v1/vault/modules/{module_id}/permissions",
                HTTPInput(body: body, path: ["module_id": visit.text("module_id") ?? ""]), for: visit)
            let access = [answer["read"] == .bool(true) ? "read" : nil, answer["write"] == .bool(true) ? "write" : nil].compactMap { $0 }
            let repo = answer["repo"]?.stringValue ?? ""
            return try await vault(
                visit,
                notice: access.isEmpty
                    ? "The module has no access to \(repo) now."
                    : "The module may \(access.joined(separator: " and ")) \(repo).")
        }
    }

    private func moduleQR(_ visit: ConsoleVisit) async throws -> Response {
        try await vaultForm(visit) {
            let id = visit.query("module_id") ?? ""
            let qr = try await admin.raw(.get, "/admin/v1/vault/modules/{module_id}/qr", HTTPInput(path: ["module_id": id]), for: visit)
            return try await vault(
                visit,
                created: ["heading": "Module \(id)'s login QR code", "fields": [[String: Any]](), "qr": ConsoleAdmin.dataURL(qr), "qrSize": 240])
        }
    }

    /// What a form made, field by field, for the "created" box.
    static func created(_ heading: String, _ answer: JSONValue, _ keys: [String], secrets: Set<String> = []) -> [String: Any] {
        [
            "heading": heading,
            "fields": keys.compactMap { key -> [String: Any]? in
                guard let value = answer[key]?.templateValue else { return nil }
                return ["name": key, "value": "\(value)", "secret": secrets.contains(key)]
            },
        ]
    }

    // MARK: API consumers and short links

    private func consumers(_ visit: ConsoleVisit, created: JSONValue? = nil, error: ConsoleFailure? = nil) async throws -> Response {
        let list = try await admin.json(.get, "/admin/v1/api-consumers", for: visit)
        var values: [String: Any] = ["consumers": list["consumers"]?.templateValue ?? [Any]()]
        if let created { values["created"] = created.templateValue }
        return ConsolePage(
            title: "API consumers", template: "consumers", values: values, status: error?.status ?? (created == nil ? .ok : .created),
            error: error?.message, section: "consumers"
        ).response(csrf: visit.csrf)
    }

    private func createConsumer(_ visit: ConsoleVisit) async throws -> Response {
        do {
            let consumer = try await admin.json(
                .post, "/admin/v1/api-consumers", HTTPInput(body: .object(["name": .string(visit.text("name") ?? "")])), for: visit)
            return try await consumers(visit, created: consumer)
        } catch let failure as ConsoleFailure where failure.status.code < 500 {
            return try await consumers(visit, error: failure)
        }
    }

    private func links(_ visit: ConsoleVisit, created: [String: Any]? = nil, error: ConsoleFailure? = nil) async throws -> Response {
        var query: [String: [String]] = ["limit": ["100"]]
        if let before = visit.query("before") { query["before"] = [before] }
        let answer = try await admin.json(.get, "/admin/v1/links", HTTPInput(query: query), for: visit)
        var values: [String: Any] = ["links": answer["links"]?.templateValue ?? [Any](), "next": answer["next_before"]?.templateValue ?? false]
        if let created { values["created"] = created }
        return ConsolePage(
            title: "Short links", template: "links", values: values,
            status: error?.status ?? (created == nil ? .ok : .created), error: error?.message, section: "links"
        ).response(csrf: visit.csrf)
    }

    private func createLink(_ visit: ConsoleVisit) async throws -> Response {
        do {
            let text = visit.text("ttl_days") ?? "14"
            guard let days = Int(text), (1...366).contains(days) else {
                throw ConsoleFailure(status: .unprocessableContent, message: "Valid for: a whole number of days from 1 to 366.")
            }
            var body: [String: JSONValue] = ["app_url": .string(visit.text("app_url") ?? ""), "ttl_seconds": .int(Int64(days) * 86_400)]
            if let title = visit.text("title") { body["title"] = .string(title) }
            let link = try await admin.json(.post, "/admin/v1/links", HTTPInput(body: .object(body)), for: visit)
            let url = link["url"]?.stringValue ?? ""
            let qr = try await admin.raw(.get, "/admin/v1/qr", HTTPInput(query: ["data": [url], "format": ["png"], "size": ["6"]]), for: visit)
            return try await links(visit, created: ["url": url, "days": days, "qr": ConsoleAdmin.dataURL(qr), "qrSize": 240])
        } catch let failure as ConsoleFailure where failure.status.code < 500 {
            return try await links(visit, error: failure)
        }
    }

    // MARK: LEMON

    private func lemon(_ visit: ConsoleVisit, error: ConsoleFailure? = nil) async throws -> Response {
        let counts = try await admin.json(.get, "/admin/v1/statistics/submissions/counts", for: visit)["counts"]?.arrayValue ?? []
        func totals(_ key: String) -> [[String: Any]] {
            var totals: [String: Int] = [:]
            for row in counts {
                if case .int(let count)? = row["count"] { totals[row[key]?.stringValue ?? "none given", default: 0] += Int(clamping: count) }
            }
            return totals.sorted { $0.key < $1.key }.map { ["name": $0.key, "count": $0.value] }
        }
        let values: [String: Any] = ["chart": SubmissionChart(counts: counts).svg, "statuses": totals("status"), "countries": totals("country")]
        return ConsolePage(title: "LEMON", template: "lemon", values: values, status: error?.status ?? .ok, error: error?.message, section: "lemon")
            .response(csrf: visit.csrf)
    }

    /// A COVID-figure import takes seconds for a large file (every line is checked, then all are stored in one
    /// transaction), so the page is sent in two parts: at once, how many rows are being imported; when the service
    /// answers, what came of it. Browsers show the first part while they wait, without a script. The status is sent
    /// with the first part, so a file the service refuses is a 200 page that says why, in an alert.
    private func importCovid(_ visit: ConsoleVisit) async throws -> Response {
        guard let file = visit.field("file"), file.contains(where: { !$0.isWhitespace }) else {
            return try await lemon(visit, error: ConsoleFailure(status: .badRequest, message: "Choose a CSV file to import."))
        }
        var query: [String: [String]] = [:]
        for name in ["source", "source_url"] { if let value = visit.text(name) { query[name] = [value] } }
        let rows = max(0, file.split(whereSeparator: \.isNewline).filter { $0.contains { !$0.isWhitespace } }.count - 1)
        var values: [String: Any] = ["rows": rows]
        if let source = visit.text("source") { values["source"] = source }
        let page = ConsolePage(title: "COVID figures import", template: "covid-import", values: values, section: "lemon").html(csrf: visit.csrf)
        let parts = page.components(separatedBy: "<!--outcome-->")
        let (head, tail) = (parts[0], parts.dropFirst().joined())
        let input = HTTPInput(body: .string(file), query: query)
        let admin = self.admin
        var response = ConsolePage.html("")
        response.body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: head))
            var outcome: [String: Any] = [:]
            do {
                let result = try await admin.json(.post, "/admin/v1/statistics/covid/imports", input, for: visit)
                var imported = result.templateValue as? [String: Any] ?? [:]
                imported["countries"] = result["countries"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ", ") ?? ""
                outcome["imported"] = imported
            } catch let failure as ConsoleFailure {
                outcome["error"] = failure.message
            }
            try await writer.write(ByteBuffer(string: (ConsoleTemplates.library.render(outcome, withTemplate: "covid-outcome") ?? "") + tail))
            try await writer.finish(nil)
        }
        return response
    }

    // MARK: Helpers

    static func time(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false).timeSeparator(.colon).dateSeparator(.dash))
    }

    static func queryEscaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }
}
