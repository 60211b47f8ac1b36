import CustodianContracts
import CustodianHTTP
import CustodianJSON
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
    /// Whether the call may be sent again after it may have run (from the method's contract).
    public var retry: RPCRetry
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

    /// How a successful result becomes the response: said by the type of the method's result.
    public typealias Rendering = RoutedRendering

    /// What the service gets in ``HTTPInput/body``.
    public enum BodyFormat: Sendable {
        /// Parsed JSON (or form fields, for the styles whose clients post forms); a body that is neither is a 400.
        case json
        /// The body as one JSON string, for APIs whose clients post text (the geotag app posts bare base64);
        /// the service reads it. A body that is not UTF-8 is a 400.
        case text
    }

    /// A route to the method `rpc`, whose kind of result says how the answer is made (``RoutedResult``).
    public init<Target: RouteTarget>(
        _ method: HTTPRequest.Method, _ path: String, _ rpc: Target,
        auth: AuthScheme, style: APIStyle, success successStatus: HTTPResponse.Status = .ok,
        forwardedHeaders: [HTTPField.Name] = [], acceptsFormBodies: Bool = false, body bodyFormat: BodyFormat = .json,
        maximumBodySize: Int? = nil, endToEnd: Bool = false, rateClass: RateClass = .standard
    ) {
        self.init(
            method, path, service: rpc.service, rpc: rpc.name, retry: rpc.retry, auth: auth, style: style, success: successStatus,
            rendering: Target.Result.rendering, forwardedHeaders: forwardedHeaders, acceptsFormBodies: acceptsFormBodies,
            body: bodyFormat, maximumBodySize: maximumBodySize, endToEnd: endToEnd, rateClass: rateClass)
    }

    /// A route by service and method name, for methods without a descriptor (fake services in tests).
    public init(
        _ method: HTTPRequest.Method, _ path: String, service: String, rpc rpcMethod: String, retry: RPCRetry = .unsafe,
        auth: AuthScheme, style: APIStyle, success successStatus: HTTPResponse.Status = .ok, rendering: Rendering = .json,
        forwardedHeaders: [HTTPField.Name] = [], acceptsFormBodies: Bool = false, body bodyFormat: BodyFormat = .json,
        maximumBodySize: Int? = nil, endToEnd: Bool = false, rateClass: RateClass = .standard
    ) {
        self.method = method
        self.path = path
        self.service = service
        self.rpcMethod = rpcMethod
        self.retry = retry
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
    /// A researcher/admin bearer token, checked by `auth`, of an identity whose scope includes this one (docs/admin.md).
    case admin(AdminScope)
}

/// Every route the gateway serves. Domain issues add theirs here.
public enum RouteTable {
    /// The largest plaintext an app seals into a request: a 16 KiB survey (docs/lemon.md).
    public static let maximumSealedPlaintextSize = 16 * 1024

    public static let all: [Route] = twomes + openSense + links + vault + geotag + lemon + statistics + administration

    /// Who may administer: owners manage the admin identities, read the audit log and rotate the access tokens' signing
    /// keys (docs/admin.md).
    static let administration: [Route] = [
        Route(.get, "/admin/v1/tokens", AuthMethods.tokensList, auth: .admin(.owner), style: .admin),
        Route(.post, "/admin/v1/tokens", AuthMethods.tokensCreate, auth: .admin(.owner), style: .admin, success: .created),
        Route(.delete, "/admin/v1/tokens/{token_id}", AuthMethods.tokensRevoke, auth: .admin(.owner), style: .admin),
        Route(.get, "/admin/v1/audit", AuthMethods.auditList, auth: .admin(.owner), style: .admin),
        Route(.get, "/admin/v1/signing-keys", AuthMethods.signingKeysList, auth: .admin(.owner), style: .admin),
        Route(.post, "/admin/v1/signing-keys", AuthMethods.signingKeysRotate, auth: .admin(.owner), style: .admin, success: .created),
        Route(.delete, "/admin/v1/signing-keys/{kid}", AuthMethods.signingKeysRetire, auth: .admin(.owner), style: .admin),
    ]

    /// The LEMON tracing app's API: the handshake in the clear, everything after it end-to-end
    /// encrypted with the session's keys (docs/lemon.md).
    static let lemon: [Route] = {
        func app(
            _ method: HTTPRequest.Method, _ path: String, _ rpc: some RouteTarget, success: HTTPResponse.Status = .ok,
            maximumBodySize: Int? = nil
        ) -> Route {
            Route(method, path, rpc, auth: .jwt(kinds: [.app]), style: .lemon, success: success, maximumBodySize: maximumBodySize, endToEnd: true)
        }
        return [
            Route(.post, "/api/v1/devices", AuthMethods.lemonHandshake, auth: .none, style: .lemon, rateClass: .credential),
            Route(.get, "/api/v1/keys", AuthMethods.lemonKeys, auth: .none, style: .lemon),
            Route(.get, "/admin/v1/lemon/apps", AuthMethods.lemonAppsList, auth: .admin(.operator), style: .admin),
            Route(.delete, "/admin/v1/lemon/apps/{device_id}", AuthMethods.lemonAppsErase, auth: .admin(.owner), style: .admin),
            app(.delete, "/api/v1/devices", AuthMethods.lemonDeviceDelete),
            app(.post, "/api/v1/devices/active", AuthMethods.lemonDeviceActive),
            app(.post, "/api/v1/devices/push_token", AuthMethods.lemonPushTokenUpdate, success: .created),
            app(.delete, "/api/v1/devices/push_token", AuthMethods.lemonPushTokenDelete),
            app(.get, "/api/v1/symptoms", StatisticsMethods.symptomsList),
            // A 16 KiB survey, sealed: base64 of IV, padded ciphertext and MAC.
            app(.post, "/api/v1/submission/covid", StatisticsMethods.submissionCreate, success: .created, maximumBodySize: 24 * 1024),
            app(.get, "/api/v1/statistics/covid/google", StatisticsMethods.covidGet),
            app(.get, "/api/v1/countries", StatisticsMethods.countriesList),
            app(.get, "/api/v1/languages", StatisticsMethods.languagesList),
        ]
    }()

    /// The OwnYourData data vault and its administration (docs/vault.md).
    static let vault: [Route] = [
        // Client credentials may come as HTTP Basic, so this one route hands its Authorization header on.
        Route(
            .post, "/oauth/token", AuthMethods.oauthToken, auth: .none, style: .oyd, forwardedHeaders: [.authorization],
            acceptsFormBodies: true, rateClass: .credential),
        Route(.get, "/api/modules/index", VaultMethods.modulesIndex, auth: .jwt(kinds: [.user, .module]), style: .oyd),
        Route(.get, "/api/repos/{identifier}/pub_key", VaultMethods.reposPubKey, auth: .jwt(kinds: [.user, .module]), style: .oyd),
        Route(.post, "/api/repos/{identifier}/items", VaultMethods.itemsWrite, auth: .jwt(kinds: [.user, .module]), style: .oyd),
        Route(.get, "/api/repos/{identifier}/items", VaultMethods.itemsRead, auth: .jwt(kinds: [.user, .module]), style: .oyd),
        Route(.delete, "/api/items/{id}", VaultMethods.itemsDelete, auth: .jwt(kinds: [.user, .module]), style: .oyd),
        Route(.post, "/api/repos/{identifier}/items/decrypted", VaultMethods.itemsDecrypted, auth: .jwt(kinds: [.user]), style: .oyd),
        Route(
            .post, "/api/password", AuthMethods.vaultUsersChangePassword, auth: .jwt(kinds: [.user]), style: .oyd,
            rateClass: .credential),
        Route(.post, "/admin/v1/vault/users", AuthMethods.vaultUsersCreate, auth: .admin(.operator), style: .admin, success: .created),
        Route(.get, "/admin/v1/vault/users", VaultMethods.adminUsers, auth: .admin(.researcher), style: .admin),
        Route(.delete, "/admin/v1/vault/users/{user_id}", AuthMethods.vaultUsersErase, auth: .admin(.owner), style: .admin),
        Route(
            .post, "/admin/v1/vault/users/{user_id}/modules", VaultMethods.adminCreateModule, auth: .admin(.operator), style: .admin,
            success: .created),
        Route(
            .post, "/admin/v1/vault/users/{user_id}/repos", VaultMethods.adminCreateRepo, auth: .admin(.operator), style: .admin, success: .created),
        Route(.post, "/admin/v1/vault/modules/{module_id}/permissions", VaultMethods.adminGrant, auth: .admin(.operator), style: .admin),
        Route(.get, "/admin/v1/vault/modules/{module_id}/qr", VaultMethods.adminModuleQR, auth: .admin(.operator), style: .admin),
    ]

    /// The OpenSense framework's backend (docs/opensense.md) and its researcher routes (docs/admin.md, "OpenSense").
    static let openSense: [Route] = [
        Route(
            .post, "/register", DevicesMethods.opensenseRegister, auth: .none, style: .opensense, acceptsFormBodies: true,
            rateClass: .credential),
        Route(.get, "/config", DevicesMethods.opensenseConfig, auth: .none, style: .opensense),
        Route(.post, "/upload", DevicesMethods.opensenseUpload, auth: .none, style: .opensense, acceptsFormBodies: true),
        Route(.get, "/admin/v1/opensense/devices", DevicesMethods.opensenseDevices, auth: .admin(.researcher), style: .admin),
        Route(.get, "/admin/v1/opensense/devices/{device_id}", DevicesMethods.opensenseDevice, auth: .admin(.researcher), style: .admin),
        Route(.get, "/admin/v1/opensense/devices/{device_id}/key", DevicesMethods.opensenseKey, auth: .admin(.owner), style: .admin),
        Route(.delete, "/admin/v1/opensense/devices/{device_id}", DevicesMethods.opensenseErase, auth: .admin(.owner), style: .admin),
        Route(.put, "/admin/v1/opensense/config", DevicesMethods.opensenseReplaceConfig, auth: .admin(.operator), style: .admin),
        Route(.get, "/admin/v1/opensense/batches", DevicesMethods.opensenseExport, auth: .admin(.researcher), style: .admin),
    ]

    /// Twomes provisioning (docs/twomes.md), and the researcher's view of it (docs/admin.md, "Researcher routes").
    static let twomes: [Route] = [
        Route(.post, "/account", DevicesMethods.accountCreate, auth: .admin(.operator), style: .twomes),
        Route(.post, "/account/activate", DevicesMethods.accountActivate, auth: .none, style: .twomes, rateClass: .credential),
        Route(.post, "/device", DevicesMethods.deviceCreate, auth: .admin(.operator), style: .twomes),
        Route(.get, "/device_type/{device_name}", DevicesMethods.deviceType, auth: .opaque(kind: .account), style: .twomes),
        Route(
            .post, "/account/device/activate", DevicesMethods.deviceAttach, auth: .opaque(kind: .account), style: .twomes,
            rateClass: .credential),
        Route(.post, "/device/activate", DevicesMethods.deviceActivate, auth: .none, style: .twomes, rateClass: .credential),
        Route(.get, "/device/{device_name}", DevicesMethods.deviceGet, auth: .opaque(kind: .account), style: .twomes),
        Route(.post, "/device/measurements/variable-interval", DevicesMethods.measurementsVariable, auth: .opaque(kind: .device), style: .twomes),
        Route(.post, "/device/measurements/fixed-interval", DevicesMethods.measurementsFixed, auth: .opaque(kind: .device), style: .twomes),
        Route(.post, "/admin/v1/device-types", DevicesMethods.deviceTypesCreate, auth: .admin(.operator), style: .admin, success: .created),
        Route(.get, "/admin/v1/device-types", DevicesMethods.deviceTypesList, auth: .admin(.researcher), style: .admin),
        Route(.get, "/admin/v1/accounts", DevicesMethods.accountsList, auth: .admin(.researcher), style: .admin),
        Route(.get, "/admin/v1/devices", DevicesMethods.devicesList, auth: .admin(.researcher), style: .admin),
        Route(.get, "/admin/v1/accounts/{pseudonym}", DevicesMethods.accountDetail, auth: .admin(.researcher), style: .admin),
        Route(.get, "/admin/v1/devices/{device_name}", DevicesMethods.deviceDetail, auth: .admin(.researcher), style: .admin),
        Route(
            .post, "/admin/v1/accounts/{pseudonym}/activation", DevicesMethods.accountReissue, auth: .admin(.operator), style: .admin,
            success: .created),
        // JSON or CSV, as its Content-Type says: the body goes as text, and the service reads it.
        Route(
            .post, "/admin/v1/accounts/cohort", DevicesMethods.accountsCohort, auth: .admin(.operator), style: .admin, success: .created,
            forwardedHeaders: [.contentType], body: .text),
        Route(.delete, "/admin/v1/accounts/{pseudonym}", DevicesMethods.accountErase, auth: .admin(.owner), style: .admin),
        Route(.post, "/admin/v1/devices/{device_name}/detach", DevicesMethods.deviceDetach, auth: .admin(.operator), style: .admin),
        Route(.delete, "/admin/v1/devices/{device_name}", DevicesMethods.deviceErase, auth: .admin(.owner), style: .admin),
        Route(.get, "/admin/v1/measurements", DevicesMethods.measurementsExport, auth: .admin(.researcher), style: .admin),
        Route(.get, "/admin/v1/devices/{device_name}/label", DevicesMethods.deviceLabel, auth: .admin(.operator), style: .admin),
        Route(.get, "/admin/v1/device-labels", DevicesMethods.deviceLabels, auth: .admin(.operator), style: .admin),
    ]

    /// QR code images and self-hosted short links (the `links` service; docs/links.md).
    static let links: [Route] = [
        Route(.get, "/admin/v1/qr", LinksMethods.qrHttp, auth: .admin(.operator), style: .admin),
        Route(.post, "/admin/v1/links", LinksMethods.shortHttpCreate, auth: .admin(.operator), style: .admin, success: .created),
        Route(.get, "/admin/v1/links", LinksMethods.shortList, auth: .admin(.researcher), style: .admin),
        Route(.delete, "/admin/v1/links/{code}", LinksMethods.shortRevoke, auth: .admin(.operator), style: .admin),
        // Opened by people: phones are sent on to the app, everyone else gets a page, so the user agent goes along.
        Route(
            .get, "/l/{code}", LinksMethods.shortResolve, auth: .none, style: .admin,
            forwardedHeaders: [.userAgent]),
    ]

    /// The geotagging route store and its API consumers (docs/geotag.md).
    static let geotag: [Route] = [
        // Bare base64 or JSON, up to the base64 of a 1 MiB route with line breaks every 76 characters.
        Route(
            .post, "/route", RoutesMethods.routeStore, auth: .signature, style: .geotag, success: .created,
            body: .text, maximumBodySize: 1_572_864),
        Route(.get, "/route/lookup/{lookup_id}", RoutesMethods.routeLookup, auth: .signature, style: .geotag),
        Route(.get, "/route/{route_id}", RoutesMethods.routeGet, auth: .signature, style: .geotag),
        Route(.delete, "/route/{route_id}", RoutesMethods.routeDelete, auth: .signature, style: .geotag, success: .noContent),
        Route(.post, "/admin/v1/api-consumers", RoutesMethods.consumersCreate, auth: .admin(.operator), style: .admin, success: .created),
        Route(.get, "/admin/v1/api-consumers", RoutesMethods.consumersList, auth: .admin(.researcher), style: .admin),
        Route(.delete, "/admin/v1/api-consumers/{consumer_key}", RoutesMethods.consumersRevoke, auth: .admin(.operator), style: .admin),
    ]

    /// The statistics service's researcher routes (docs/admin.md); its app routes are in ``lemon``.
    static let statistics: [Route] = [
        Route(.get, "/admin/v1/statistics/countries", StatisticsMethods.adminCountriesList, auth: .admin(.researcher), style: .admin),
        Route(.put, "/admin/v1/statistics/countries/{alpha2}", StatisticsMethods.adminCountriesUpsert, auth: .admin(.operator), style: .admin),
        Route(.get, "/admin/v1/statistics/languages", StatisticsMethods.adminLanguagesList, auth: .admin(.researcher), style: .admin),
        Route(.put, "/admin/v1/statistics/languages/{alpha2}", StatisticsMethods.adminLanguagesUpsert, auth: .admin(.operator), style: .admin),
        Route(.get, "/admin/v1/statistics/symptoms", StatisticsMethods.adminSymptomsList, auth: .admin(.researcher), style: .admin),
        Route(.put, "/admin/v1/statistics/symptoms/{key}", StatisticsMethods.adminSymptomsUpsert, auth: .admin(.operator), style: .admin),
        Route(.delete, "/admin/v1/statistics/symptoms/{key}", StatisticsMethods.adminSymptomsDeactivate, auth: .admin(.operator), style: .admin),
        // The CSV travels as one string in one RPC frame (CUSTODIAN_MAX_FRAME_SIZE, 8 MiB by default): 6 MiB leaves room for escaping.
        Route(
            .post, "/admin/v1/statistics/covid/imports", StatisticsMethods.adminCovidImport, auth: .admin(.operator), style: .admin,
            success: .created, body: .text, maximumBodySize: 6 * 1024 * 1024),
        Route(.get, "/admin/v1/statistics/covid", StatisticsMethods.adminCovidList, auth: .admin(.researcher), style: .admin),
        Route(.get, "/admin/v1/statistics/submissions/counts", StatisticsMethods.adminSubmissionsCounts, auth: .admin(.researcher), style: .admin),
        Route(.get, "/admin/v1/statistics/submissions", StatisticsMethods.adminSubmissionsExport, auth: .admin(.researcher), style: .admin),
    ]

    /// The services the gateway talks to: those of its routes, `auth` (which checks credentials), and the
    /// rest of the platform, all of which `/readyz` checks.
    public static func services(of routes: [Route]) -> [String] {
        Array(Set(routes.map(\.service) + Platform.services)).sorted()
    }
}
