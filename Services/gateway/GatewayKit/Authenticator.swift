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
