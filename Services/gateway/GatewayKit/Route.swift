import CustodianRPC
import CustodianProcess
import HTTPTypes

/// One HTTP route: which service method answers it, how its caller authenticates, and in which API's
/// style its results and errors are rendered.
public struct Route: Sendable {
    public var method: HTTPRequest.Method
    /// A Hummingbird path pattern; `{name}` captures a path parameter.
    public var path: String
    public var service: String
    public var rpcMethod: String
    public var auth: AuthScheme
    public var style: APIStyle
    public var successStatus: HTTPResponse.Status
    public var rendering: Rendering
    /// Request headers the service gets in ``HTTPInput/headers`` (a link resolver tells phones from
    /// desktops by `User-Agent`); none by default, so services see no more of a request than they need.
    public var forwardedHeaders: [HTTPField.Name]
    /// Whether `application/x-www-form-urlencoded` bodies are parsed as forms (OpenSense's client, OAuth token
    /// requests); elsewhere a body is JSON whatever its label, so that `curl -d '{…}'` works.
    public var acceptsFormBodies: Bool
    /// How the body reaches the service.
    public var bodyFormat: BodyFormat
    /// This route's body limit in bytes, instead of `CUSTODIAN_MAX_BODY_SIZE` (geotag uploads are base64
    /// of up to 1 MiB, a third larger than that).
    public var maximumBodySize: Int?
    /// Whether bodies both ways are the tracing API's end-to-end payloads, sealed with the keys of the
    /// token's session (docs/lemon.md); the route's auth must be a JWT with a session.
    public var endToEnd: Bool
    /// For end-to-end routes: the largest plaintext inside the sealed body, in bytes (413 beyond, sealed).
    public var maximumPlaintextSize: Int?
    /// Which rate limits its requests count against: `credential` for routes where a request is a guess at a
    /// secret or makes a new identity, `standard` for the rest.
    public var rateClass: RateClass

    /// How a successful result becomes the response.
    public enum Rendering: Sendable {
        /// The result is JSON, rendered in the route's API style.
        case json
        /// The result is a ``RawHTTPReply``: status, headers and body as the service made them.
        case raw
        /// The result is a ``StreamPage``; the gateway fetches the following pages while it writes the body.
        case stream
    }

    /// What the service gets in ``HTTPInput/body``.
    public enum BodyFormat: Sendable {
        /// Parsed JSON (or form fields, for the styles whose clients post forms); a body that is neither is a 400.
        case json
        /// The body as one JSON string, for APIs whose clients post text (the geotag app posts bare base64);
        /// the service reads it. A body that is not UTF-8 is a 400.
        case text
    }

    public init(_ method: HTTPRequest.Method, _ path: String, service: String, rpc rpcMethod: String,
                auth: AuthScheme, style: APIStyle, success successStatus: HTTPResponse.Status = .ok, rendering: Rendering = .json,
                forwardedHeaders: [HTTPField.Name] = [], acceptsFormBodies: Bool = false, body bodyFormat: BodyFormat = .json,
                maximumBodySize: Int? = nil, endToEnd: Bool = false, rateClass: RateClass = .standard) {
        self.method = method
        self.path = path
        self.service = service
        self.rpcMethod = rpcMethod
        self.auth = auth
        self.style = style
        self.successStatus = successStatus
        self.rendering = rendering
        self.forwardedHeaders = forwardedHeaders
        self.acceptsFormBodies = acceptsFormBodies
        self.bodyFormat = bodyFormat
        self.maximumBodySize = maximumBodySize
        self.endToEnd = endToEnd
        self.maximumPlaintextSize = endToEnd ? RouteTable.maximumSealedPlaintextSize : nil
        self.rateClass = rateClass
    }
}

/// How a route's caller proves who it is.
public enum AuthScheme: Sendable, Equatable {
    case none
    /// A JWT signed by `auth`, checked in the gateway; the principal's kind must be one of these.
    case jwt(kinds: [PrincipalKind])
    /// A bearer token only its issuing service can check; forwarded to the route's service.
    case opaque(kind: PrincipalKind)
    /// A signed request (`X-API-Key`, `X-API-Timestamp`, `X-API-Sig`: an HMAC over the method, target,
    /// timestamp and body digest), checked by `routes`, which holds the API consumers' secrets (docs/geotag.md).
    case signature
    /// A researcher/admin bearer token, checked by `auth`.
    case admin
}

/// Every route the gateway serves. Domain issues add theirs here.
public enum RouteTable {
    /// The largest plaintext an app seals into a request: a 16 KiB survey (docs/lemon.md).
    public static let maximumSealedPlaintextSize = 16 * 1024

    public static let all: [Route] = twomes + openSense + links + vault + geotag + lemon + statistics

    /// The LEMON tracing app's API (seed 003): the handshake in the clear, everything after it end-to-end
    /// encrypted with the session's keys (docs/lemon.md).
    static let lemon: [Route] = {
        func app(_ method: HTTPRequest.Method, _ path: String, _ service: String, _ rpc: String, success: HTTPResponse.Status = .ok,
                 maximumBodySize: Int? = nil) -> Route {
            Route(method, path, service: service, rpc: rpc, auth: .jwt(kinds: ["app"]), style: .lemon, success: success,
                  maximumBodySize: maximumBodySize, endToEnd: true)
        }
        return [
            Route(.post, "/api/v1/devices", service: "auth", rpc: "auth.lemon.handshake", auth: .none, style: .lemon, rateClass: .credential),
            Route(.get, "/api/v1/keys", service: "auth", rpc: "auth.lemon.keys", auth: .none, style: .lemon),
            app(.delete, "/api/v1/devices", "auth", "auth.lemon.device.delete"),
            app(.post, "/api/v1/devices/active", "auth", "auth.lemon.device.active"),
            app(.post, "/api/v1/devices/push_token", "auth", "auth.lemon.pushToken.update", success: .created),
            app(.delete, "/api/v1/devices/push_token", "auth", "auth.lemon.pushToken.delete"),
            app(.get, "/api/v1/symptoms", "statistics", "statistics.symptoms.list"),
            // A 16 KiB survey, sealed: base64 of IV, padded ciphertext and MAC.
            app(.post, "/api/v1/submission/covid", "statistics", "statistics.submission.create", success: .created, maximumBodySize: 24 * 1024),
            app(.get, "/api/v1/statistics/covid/google", "statistics", "statistics.covid.get"),
            app(.get, "/api/v1/countries", "statistics", "statistics.countries.list"),
            app(.get, "/api/v1/languages", "statistics", "statistics.languages.list"),
        ]
    }()

    /// The OwnYourData data vault (seed 000) and its administration.
    static let vault: [Route] = [
        // Client credentials may come as HTTP Basic, so this one route hands its Authorization header on.
        Route(.post, "/oauth/token", service: "auth", rpc: "auth.oauth.token", auth: .none, style: .oyd, forwardedHeaders: [.authorization],
              acceptsFormBodies: true, rateClass: .credential),
        Route(.get, "/api/modules/index", service: "vault", rpc: "vault.modules.index", auth: .jwt(kinds: ["user", "module"]), style: .oyd),
        Route(.get, "/api/repos/{identifier}/pub_key", service: "vault", rpc: "vault.repos.pubKey", auth: .jwt(kinds: ["user", "module"]), style: .oyd),
        Route(.post, "/api/repos/{identifier}/items", service: "vault", rpc: "vault.items.write", auth: .jwt(kinds: ["user", "module"]), style: .oyd, rendering: .raw),
        Route(.get, "/api/repos/{identifier}/items", service: "vault", rpc: "vault.items.read", auth: .jwt(kinds: ["user", "module"]), style: .oyd, rendering: .raw),
        Route(.post, "/api/repos/{identifier}/items/decrypted", service: "vault", rpc: "vault.items.decrypted", auth: .jwt(kinds: ["user"]), style: .oyd),
        Route(.post, "/api/password", service: "auth", rpc: "auth.vaultUsers.changePassword", auth: .jwt(kinds: ["user"]), style: .oyd,
              rateClass: .credential),
        Route(.post, "/admin/v1/vault/users", service: "auth", rpc: "auth.vaultUsers.create", auth: .admin, style: .admin, success: .created),
        Route(.post, "/admin/v1/vault/users/{user_id}/modules", service: "vault", rpc: "vault.admin.createModule", auth: .admin, style: .admin, success: .created),
        Route(.post, "/admin/v1/vault/users/{user_id}/repos", service: "vault", rpc: "vault.admin.createRepo", auth: .admin, style: .admin, success: .created),
        Route(.post, "/admin/v1/vault/modules/{module_id}/permissions", service: "vault", rpc: "vault.admin.grant", auth: .admin, style: .admin),
        Route(.get, "/admin/v1/vault/modules/{module_id}/qr", service: "vault", rpc: "vault.admin.moduleQR", auth: .admin, style: .admin, rendering: .raw),
    ]

    /// The OpenSense framework's backend (seed 001, 3.4) and its researcher routes.
    static let openSense: [Route] = [
        Route(.post, "/register", service: "devices", rpc: "devices.opensense.register", auth: .none, style: .opensense, acceptsFormBodies: true,
              rateClass: .credential),
        Route(.get, "/config", service: "devices", rpc: "devices.opensense.config", auth: .none, style: .opensense),
        Route(.post, "/upload", service: "devices", rpc: "devices.opensense.upload", auth: .none, style: .opensense, acceptsFormBodies: true),
        Route(.get, "/admin/v1/opensense/devices", service: "devices", rpc: "devices.opensense.devices", auth: .admin, style: .admin),
        Route(.get, "/admin/v1/opensense/devices/{device_id}/key", service: "devices", rpc: "devices.opensense.key", auth: .admin, style: .admin),
        Route(.put, "/admin/v1/opensense/config", service: "devices", rpc: "devices.opensense.replaceConfig", auth: .admin, style: .admin),
        Route(.get, "/admin/v1/opensense/batches", service: "devices", rpc: "devices.opensense.export", auth: .admin, style: .admin, rendering: .stream),
    ]

    /// Twomes provisioning (seed 004), and the researcher's view of it.
    static let twomes: [Route] = [
        Route(.post, "/account", service: "devices", rpc: "devices.account.create", auth: .admin, style: .twomes),
        Route(.post, "/account/activate", service: "devices", rpc: "devices.account.activate", auth: .none, style: .twomes, rateClass: .credential),
        Route(.post, "/device", service: "devices", rpc: "devices.device.create", auth: .admin, style: .twomes),
        Route(.get, "/device_type/{device_name}", service: "devices", rpc: "devices.device.type", auth: .opaque(kind: "account"), style: .twomes),
        Route(.post, "/account/device/activate", service: "devices", rpc: "devices.device.attach", auth: .opaque(kind: "account"), style: .twomes,
              rateClass: .credential),
        Route(.post, "/device/activate", service: "devices", rpc: "devices.device.activate", auth: .none, style: .twomes, rateClass: .credential),
        Route(.get, "/device/{device_name}", service: "devices", rpc: "devices.device.get", auth: .opaque(kind: "account"), style: .twomes),
        Route(.post, "/device/measurements/variable-interval", service: "devices", rpc: "devices.measurements.variable", auth: .opaque(kind: "device"), style: .twomes),
        Route(.post, "/device/measurements/fixed-interval", service: "devices", rpc: "devices.measurements.fixed", auth: .opaque(kind: "device"), style: .twomes),
        Route(.post, "/admin/v1/device-types", service: "devices", rpc: "devices.deviceTypes.create", auth: .admin, style: .admin, success: .created),
        Route(.get, "/admin/v1/device-types", service: "devices", rpc: "devices.deviceTypes.list", auth: .admin, style: .admin),
        Route(.get, "/admin/v1/accounts", service: "devices", rpc: "devices.accounts.list", auth: .admin, style: .admin),
        Route(.get, "/admin/v1/measurements", service: "devices", rpc: "devices.measurements.export", auth: .admin, style: .admin, rendering: .stream),
        Route(.get, "/admin/v1/devices/{device_name}/label", service: "devices", rpc: "devices.device.label", auth: .admin, style: .admin, rendering: .raw),
        Route(.get, "/admin/v1/device-labels", service: "devices", rpc: "devices.device.labels", auth: .admin, style: .admin, rendering: .raw),
    ]

    /// QR code images and self-hosted short links (the `links` service; docs/links.md).
    static let links: [Route] = [
        Route(.get, "/admin/v1/qr", service: "links", rpc: "links.qr.http", auth: .admin, style: .admin, rendering: .raw),
        Route(.post, "/admin/v1/links", service: "links", rpc: "links.short.http.create", auth: .admin, style: .admin, success: .created),
        // Opened by people: phones are sent on to the app, everyone else gets a page, so the user agent goes along.
        Route(.get, "/l/{code}", service: "links", rpc: "links.short.resolve", auth: .none, style: .admin, rendering: .raw,
              forwardedHeaders: [.userAgent]),
    ]

    /// The geotagging route store (seed 002) and its API consumers (docs/geotag.md).
    static let geotag: [Route] = [
        // Bare base64 or JSON, up to the base64 of a 1 MiB route with line breaks every 76 characters.
        Route(.post, "/route", service: "routes", rpc: "routes.route.store", auth: .signature, style: .geotag, success: .created,
              body: .text, maximumBodySize: 1_572_864),
        Route(.get, "/route/lookup/{lookup_id}", service: "routes", rpc: "routes.route.lookup", auth: .signature, style: .geotag),
        Route(.get, "/route/{route_id}", service: "routes", rpc: "routes.route.get", auth: .signature, style: .geotag),
        Route(.delete, "/route/{route_id}", service: "routes", rpc: "routes.route.delete", auth: .signature, style: .geotag, success: .noContent),
        Route(.post, "/admin/v1/api-consumers", service: "routes", rpc: "routes.consumers.create", auth: .admin, style: .admin, success: .created),
        Route(.get, "/admin/v1/api-consumers", service: "routes", rpc: "routes.consumers.list", auth: .admin, style: .admin),
    ]

    /// The statistics service's researcher routes (docs/admin.md); its app routes are in ``lemon``.
    static let statistics: [Route] = [
        Route(.get, "/admin/v1/statistics/countries", service: "statistics", rpc: "statistics.admin.countries.list", auth: .admin, style: .admin),
        Route(.put, "/admin/v1/statistics/countries/{alpha2}", service: "statistics", rpc: "statistics.admin.countries.upsert", auth: .admin, style: .admin),
        Route(.get, "/admin/v1/statistics/languages", service: "statistics", rpc: "statistics.admin.languages.list", auth: .admin, style: .admin),
        Route(.put, "/admin/v1/statistics/languages/{alpha2}", service: "statistics", rpc: "statistics.admin.languages.upsert", auth: .admin, style: .admin),
        Route(.get, "/admin/v1/statistics/symptoms", service: "statistics", rpc: "statistics.admin.symptoms.list", auth: .admin, style: .admin),
        Route(.put, "/admin/v1/statistics/symptoms/{key}", service: "statistics", rpc: "statistics.admin.symptoms.upsert", auth: .admin, style: .admin),
        Route(.delete, "/admin/v1/statistics/symptoms/{key}", service: "statistics", rpc: "statistics.admin.symptoms.deactivate", auth: .admin, style: .admin),
        // The CSV travels as one string in one RPC frame (CUSTODIAN_MAX_FRAME_SIZE, 8 MiB by default): 6 MiB leaves room for escaping.
        Route(.post, "/admin/v1/statistics/covid/imports", service: "statistics", rpc: "statistics.admin.covid.import", auth: .admin, style: .admin,
              success: .created, body: .text, maximumBodySize: 6 * 1024 * 1024),
        Route(.get, "/admin/v1/statistics/submissions/counts", service: "statistics", rpc: "statistics.admin.submissions.counts", auth: .admin, style: .admin),
        Route(.get, "/admin/v1/statistics/submissions", service: "statistics", rpc: "statistics.admin.submissions.export", auth: .admin, style: .admin,
              rendering: .stream),
    ]

    /// The services the gateway talks to: those of its routes, `auth` (which checks credentials), and the
    /// rest of the platform, all of which `/readyz` checks.
    public static func services(of routes: [Route]) -> [String] {
        Array(Set(routes.map(\.service) + Platform.services)).sorted()
    }
}
