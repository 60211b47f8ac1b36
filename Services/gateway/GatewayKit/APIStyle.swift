import CustodianContracts
import CustodianJSON
import CustodianRPC
import Foundation
import HTTPTypes

/// The API families the gateway speaks, each with its own success and error shapes (DESIGN.md).
public enum APIStyle: String, Sendable, CaseIterable {
    case oyd, opensense, geotag, lemon, twomes, admin

    /// The body of a successful response.
    func successBody(_ result: JSONValue, status: HTTPResponse.Status) -> JSONValue {
        switch self {
        case .lemon:
            // The document's envelope: a success carries no message.
            ["data": result, "meta": ["success": true, "code": .int(Int64(status.code)), "message": .null]]
        default:
            result
        }
    }

    /// The body of an error response.
    func errorBody(status: HTTPResponse.Status, reason: String, message: String, details: JSONValue?) -> JSONValue {
        switch self {
        case .twomes:
            // FastAPI: a message, or for validation failures the list of problems.
            if status == .unprocessableContent, let details { return ["detail": details] }
            return ["detail": .string(message)]
        case .oyd:
            return ["error": .string(reason), "error_description": .string(message)]
        case .opensense:
            return ["error": .string(message)]
        case .geotag:
            return ["error": .string(reason), "message": .string(message)]
        case .lemon:
            return ["data": .null, "meta": ["success": false, "code": .int(Int64(status.code)), "message": .string(message)]]
        case .admin:
            // Details other than a validation failure's FastAPI list (which the message sums up) go along:
            // a CSV import's bad lines, say.
            if let details, reason != "validation_failed" {
                return ["error": ["reason": .string(reason), "message": .string(message), "details": details]]
            }
            return ["error": ["reason": .string(reason), "message": .string(message)]]
        }
    }

    /// What a request without the credential its route needs gets.
    func missingCredential() -> GatewayError {
        switch self {
        case .twomes:
            // FastAPI's HTTPBearer answers a missing Authorization header with 403, and the app relies on it.
            GatewayError(status: .forbidden, reason: "not_authenticated", message: "Not authenticated", style: self)
        case .oyd:
            GatewayError(status: .unauthorized, reason: "invalid_token", message: "The access token is missing", style: self)
        case .lemon:
            // The tracing API's one wording for every token problem (docs/lemon.md, "End-to-end payloads"), details after a colon.
            GatewayError(status: .unauthorized, reason: "unauthenticated", message: "Missing or Invalid JWT", style: self)
        default:
            GatewayError(status: .unauthorized, reason: "unauthenticated", message: "Authentication required", style: self)
        }
    }

    /// What a request whose access token does not verify gets (bad signature, unknown key, expired, wrong audience).
    func invalidToken() -> GatewayError {
        GatewayError(
            status: .unauthorized, reason: "invalid_token",
            message: self == .lemon ? "Missing or Invalid JWT: the access token is invalid or expired" : "The access token is invalid or expired",
            style: self)
    }

    /// What a request with an Authorization header of another scheme than Bearer gets.
    func wrongAuthorizationScheme() -> GatewayError {
        switch self {
        case .twomes:
            GatewayError(status: .forbidden, reason: "invalid_credentials", message: "Invalid authentication credentials", style: self)
        case .lemon:
            GatewayError(
                status: .unauthorized, reason: "unauthenticated", message: "Missing or Invalid JWT: Authorization must be a Bearer token", style: self
            )
        default:
            GatewayError(status: .unauthorized, reason: "unauthenticated", message: "Authorization must be a Bearer token", style: self)
        }
    }

    /// What an admin whose identity's scope does not include the route's gets (before any service is called).
    func insufficientScope(needed: AdminScope, has scope: AdminScope?) -> GatewayError {
        GatewayError(
            status: .forbidden, reason: "insufficient_scope",
            message: "This needs the \(needed.rawValue) scope; this identity has the \(scope?.rawValue ?? "no") scope", style: self)
    }

    /// A request holding U+0000 anywhere (body, form, path, query): no API of ours means anything by it and
    /// PostgreSQL stores no such text (`HTTPInput.containsNUL`).
    func nulCharacter() -> GatewayError {
        GatewayError(
            status: .badRequest, reason: "nul_character",
            message: "The request contains a NUL character (U+0000), which no field may hold", style: self)
    }

    /// A request body that is not valid JSON.
    func malformedBody(_ problem: String) -> GatewayError {
        switch self {
        case .twomes:
            GatewayError(
                status: .unprocessableContent, reason: "json_invalid", message: problem,
                style: self, details: [["loc": ["body"], "msg": .string(problem), "type": "value_error.jsondecode"]])
        case .oyd:
            GatewayError(status: .badRequest, reason: "invalid_request", message: problem, style: self)
        default:
            GatewayError(status: .badRequest, reason: "malformed_body", message: problem, style: self)
        }
    }
}
