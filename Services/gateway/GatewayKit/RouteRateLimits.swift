import CustodianHTTP
import CustodianRPC
import HTTPTypes
import Hummingbird

/// The rate limits as routes apply them: one place decides which buckets a request draws from and what a
/// refusal looks like (a 429 with `Retry-After`, in the route's API style, counted in `/metrics`).
struct RouteRateLimits: Sendable {
    let limiter: RateLimiter?
    let metrics: GatewayMetrics

    init(settings: RateLimitSettings, metrics: GatewayMetrics) {
        self.limiter = settings.enabled ? RateLimiter(settings: settings) : nil
        self.metrics = metrics
        metrics.recordRateLimits(enabled: settings.enabled)
    }

    var trustedProxies: [AddressRange] { limiter?.settings.trustedProxies ?? [] }

    /// Before anything else of the request is looked at: the client address's bucket for the route's class; for
    /// routes that take a credential, whether the address has failed authentication too often, and the bucket of
    /// the credential itself.
    func admit(_ route: Route, request: Request, client: String) throws {
        guard let limiter else { return }
        try enforce(limiter.take(.init(rateClass: route.rateClass, scope: .address, value: client)), route: route, scope: .address)
        if route.auth != .none {
            try enforce(
                limiter.check(.init(rateClass: route.rateClass, scope: .authenticationFailures, value: client)),
                route: route, scope: .authenticationFailures)
        }
        if route.rateClass == .standard, let credential = Self.credential(of: request) {
            try enforce(
                limiter.take(.init(rateClass: .standard, scope: .credential, value: RateLimiter.credentialKey(credential))),
                route: route, scope: .credential)
        }
    }

    /// Once the body is read, for credential-class routes: the bucket of the account the request names, so that
    /// guesses at one account's password are slow from however many addresses they come.
    func admitAccount(_ route: Route, input: HTTPInput, principal: Principal?) throws {
        guard let limiter, route.rateClass == .credential, let account = Self.account(in: input, principal: principal) else { return }
        try enforce(
            limiter.take(.init(rateClass: .credential, scope: .account, value: RateLimiter.credentialKey(account))),
            route: route, scope: .account)
    }

    /// A 401 answer counts against the client address's authentication failures.
    func recordAuthenticationFailure(_ route: Route, client: String) {
        guard let limiter else { return }
        _ = limiter.take(.init(rateClass: route.rateClass, scope: .authenticationFailures, value: client))
    }

    private func enforce(_ decision: RateLimiter.Decision, route: Route, scope: RateLimiter.Scope) throws {
        guard case .refused(let seconds) = decision else { return }
        metrics.recordRateLimited(rateClass: route.rateClass.rawValue, scope: scope.rawValue)
        var error = GatewayError(
            status: .tooManyRequests, reason: "rate_limited",
            message: "Too many requests; try again in \(seconds) second\(seconds == 1 ? "" : "s")", style: route.style)
        error.headers[.retryAfter] = String(seconds)
        throw error
    }

    /// The credential a request carries: its bearer token or Basic credentials, or a signed request's API key.
    static func credential(of request: Request) -> String? {
        if let authorization = request.headers[.authorization], !authorization.isEmpty { return authorization }
        if let key = request.headers[SignedRequest.keyHeader], !key.isEmpty { return "api-key " + key }
        return nil
    }

    /// Fields that name the account a login or handshake is for, in the APIs' spellings.
    static let accountFields = ["username", "email", "client_id", "appid"]

    /// The account a credential-class request is for: the authenticated principal (a password change), the
    /// HTTP Basic user (OAuth client credentials), or a naming field of the body.
    static func account(in input: HTTPInput, principal: Principal?) -> String? {
        if let principal { return "\(principal.kind):\(principal.id)" }
        if let basic = input.headers["authorization"], basic.lowercased().hasPrefix("basic ") { return basic }
        guard case .object(let fields) = input.body else { return nil }
        for (name, value) in fields where accountFields.contains(name.lowercased()) {
            if case .string(let text) = value, !text.isEmpty { return "\(name.lowercased()):\(text.lowercased())" }
        }
        return nil
    }
}
