import CustodianContracts
import CustodianRPC
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Establishes who calls a route, per the route's scheme, and records it in the call context.
struct Authenticator: Sendable {
    let rpc: RPCClient
    let accessTokens: AccessTokenVerifier

    /// `body` is the request's whole body, collected beforehand for the schemes whose credential covers it.
    func authenticate(_ route: Route, request: Request, body: ByteBuffer?, context: inout CallContext) async throws {
        try await markSynthetic(request, style: route.style, context: &context)
        switch route.auth {
        case .none:
            return
        case .admin:
            let token = try bearerToken(request, style: route.style)
            do {
                context.principal = try await rpc.call(AuthMethods.adminAuthenticate, input: TokenInput(token: token), context: context)
            } catch let error as RPCError {
                throw GatewayError(error, style: route.style)
            }
        case .opaque(let kind):
            // Only the issuing service can tell whether the token is good; it gets it with the call.
            context.credential = Credential(token: try bearerToken(request, style: route.style), expectedKind: kind)
        case .jwt(let kinds):
            let token = try bearerToken(request, style: route.style)
            let claims: AccessClaimsResult
            do {
                let verified = try await accessTokens.verify(token, context: context)
                claims = AccessClaimsResult(
                    kind: PrincipalKind(rawValue: verified.kind), subject: verified.sub.value, session: verified.sid, scopes: verified.scope ?? [])
            } catch let error as RPCError {
                throw GatewayError(error, style: route.style)
            } catch {
                throw route.style.invalidToken()
            }
            guard kinds.contains(claims.kind) else {
                throw GatewayError(status: .forbidden, reason: "wrong_principal", message: "This token cannot be used here", style: route.style)
            }
            context.principal = Principal(kind: claims.kind, id: claims.subject, session: claims.session, scopes: claims.scopes)
        case .signature:
            // The forwarder reads the body first for this scheme (`coversBody`); without it nothing can be checked.
            guard let body else { throw GatewayError.internal(style: route.style) }
            let check = try SignedRequest.check(request, body: body, style: route.style)
            do {
                context.principal = try await rpc.call(RoutesMethods.consumersVerify, input: check, context: context)
            } catch let error as RPCError {
                throw GatewayError(error, style: route.style)
            }
        }
    }

    /// `X-Custodian-Synthetic: <admin token>` marks what the request creates as synthetic (docs/operations.md, "Synthetic
    /// data"): only an operator or owner may, so that no participant can hide their own data, on any route (the public
    /// ones that create identities too). A token that is no good is a 401 in the route's style; a researcher's a 403.
    func markSynthetic(_ request: Request, style: APIStyle, context: inout CallContext) async throws {
        guard let token = request.headers[.custodianSynthetic] else { return }
        let trimmed = token.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw style.invalidToken() }
        let principal: Principal
        do {
            principal = try await rpc.call(AuthMethods.adminAuthenticate, input: TokenInput(token: trimmed), context: context)
        } catch let error as RPCError {
            throw GatewayError(error, style: style)
        }
        let scope = AdminScope(of: principal)
        guard let scope, scope.allows(.operator) else { throw style.insufficientScope(needed: .operator, has: scope) }
        context.synthetic = true
    }

    /// The token of an `Authorization: Bearer …` header (or, for the OwnYourData API, `?access_token=`).
    func bearerToken(_ request: Request, style: APIStyle) throws -> String {
        guard let header = request.headers[.authorization], !header.isEmpty else {
            if style == .oyd, let token = URLEncodedForm.first("access_token", inQuery: request.uri.query), !token.isEmpty { return token }
            throw style.missingCredential()
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, !parts[1].trimmingCharacters(in: .whitespaces).isEmpty else { throw style.missingCredential() }
        guard parts[0].lowercased() == "bearer" else { throw style.wrongAuthorizationScheme() }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }
}

extension HTTPField.Name {
    /// Marks a request's creations as synthetic; its value is an admin token (``Authenticator/markSynthetic(_:style:context:)``).
    static let custodianSynthetic = HTTPField.Name("X-Custodian-Synthetic")!
}

extension AuthScheme {
    /// Whether the credential covers the body, which must then be read before the check.
    var coversBody: Bool { self == .signature }
}

private struct AccessClaimsResult {
    var kind: PrincipalKind
    var subject: String
    var session: String?
    var scopes: [String]
}
