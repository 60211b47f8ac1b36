import CustodianRPC
import CustodianProcess
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle

/// Builds the gateway: the route table on a Hummingbird router, behind the request-id, error-rendering and
/// metrics middleware, served over TLS (or plain HTTP when asked to), with the RPC client as a service.
public func buildApplication(
    configuration: Configuration,
    routes: [Route] = RouteTable.all,
    logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    let gatewayConfiguration = try GatewayConfiguration(configuration)
    let metrics = GatewayMetrics()
    let services = RouteTable.services(of: routes)
    let rpc = try RPCClient.platform(for: services, configuration: configuration, logger: logger) { service, method, seconds, outcome in
        metrics.recordRPC(service: service, method: method, seconds: seconds, outcome: outcome)
    }
    let router = buildRouter(routes: routes, rpc: rpc, metrics: metrics, configuration: gatewayConfiguration)

    let connections = gatewayConfiguration.connections
    let styles = UnmatchedPathStyles(routes: routes)
    @Sendable func http(_ responder: @escaping HTTPChannelHandler.Responder) -> GuardedHTTP1Channel {
        GuardedHTTP1Channel(responder: responder, limits: connections, census: metrics.connections, styles: styles)
    }
    let server: HTTPServerBuilder
    var running: [any Service] = [
        rpc, AuditHeadPublisher(rpc: rpc, metrics: metrics, interval: gatewayConfiguration.auditHeadInterval, logger: logger),
    ]
    if let certificatePath = gatewayConfiguration.tlsCertificatePath, let keyPath = gatewayConfiguration.tlsKeyPath {
        // Read again when the files change: a renewed certificate needs no restart.
        let certificate = try ServerCertificate(
            certificatePath: certificatePath, keyPath: keyPath, interval: gatewayConfiguration.tlsReloadInterval, logger: logger)
        server = HTTPServerBuilder { responder in ReloadingTLSChannel(base: http(responder), certificate: certificate) }
        running.append(certificate)
    } else {
        server = HTTPServerBuilder { responder in http(responder) }
    }
    return Application(
        router: router,
        server: server,
        configuration: .init(address: .hostname(gatewayConfiguration.host, port: gatewayConfiguration.port), serverName: nil),
        services: running,
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? gatewayConfiguration.port) },
        logger: logger)
}

/// The router alone, for tests that drive it without a server.
public func buildRouter(
    routes: [Route], rpc: RPCClient, metrics: GatewayMetrics, configuration: GatewayConfiguration
) -> Router<GatewayRequestContext> {
    let router = Router(context: GatewayRequestContext.self)
    router.add(middleware: GatewayMiddleware(metrics: metrics, unmatchedPaths: UnmatchedPathStyles(routes: routes)))
    let authenticator = Authenticator(
        rpc: rpc, accessTokens: AccessTokenVerifier(rpc: rpc, issuer: configuration.jwtIssuer, audience: configuration.jwtAudience))
    let sessionKeys = SessionKeyCache()
    let rateLimits = RouteRateLimits(settings: configuration.rateLimits, metrics: metrics)
    var forwarders: [String: RouteForwarder] = [:]
    for route in routes {
        let forwarder = RouteForwarder(
            route: route, rpc: rpc, authenticator: authenticator,
            maximumBodySize: configuration.maximumBodySize, serviceTimeout: configuration.serviceTimeout, sessionKeys: sessionKeys,
            rateLimits: rateLimits, audit: AuditTrail(rpc: rpc))
        forwarders["\(route.method) \(route.path)"] = forwarder
        router.on(RouterPath(route.path), method: route.method) { request, context in
            try await forwarder.respond(to: request, context: context)
        }
    }
    let health = HealthRoutes(
        rpc: rpc, services: RouteTable.services(of: routes), metrics: metrics, instance: configuration.instance)
    health.add(to: router)
    DocumentationRoutes().add(to: router)
    let gate = ConsoleSessionGate(rpc: rpc, serviceTimeout: configuration.serviceTimeout, secureCookies: configuration.consoleSecureCookies)
    ConsoleRoutes(admin: ConsoleAdmin(forwarders: forwarders, gate: gate), gate: gate, health: health, metrics: metrics, rateLimits: rateLimits)
        .add(to: router)
    return router
}
