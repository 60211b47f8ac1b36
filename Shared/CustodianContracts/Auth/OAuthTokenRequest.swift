import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation

/// `POST /oauth/token` (docs/vault.md, "`POST /oauth/token`: logging in"): the password grant for users, the
/// client-credentials grant for modules. Form fields and JSON members alike are read as text; client credentials may
/// come as HTTP Basic instead, which the route forwards the `Authorization` header for.
public struct OAuthTokenRequest: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public enum Grant: Sendable, Equatable {
        case password(email: String, password: String)
        case clientCredentials(id: String, secret: String)
    }

    public var grant: Grant

    public init(grant: Grant) {
        self.grant = grant
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        let fields = Self.fields(try request.body(JSONValue.self))
        guard let grant = fields["grant_type"], !grant.isEmpty else {
            throw Self.refusal(.badRequest, "invalid_request", "grant_type is required")
        }
        switch grant {
        case "password":
            guard let email = fields["email"] ?? fields["username"], !email.isEmpty, let password = fields["password"], !password.isEmpty else {
                throw Self.refusal(.badRequest, "invalid_request", "email and password are required")
            }
            self.grant = .password(email: email, password: password)
        case "client_credentials":
            var clientID = fields["client_id"]
            var clientSecret = fields["client_secret"]
            if let (id, secret) = Self.basic(try request.header("authorization")) {
                (clientID, clientSecret) = (id, secret)
            }
            guard let clientID, !clientID.isEmpty, let clientSecret, !clientSecret.isEmpty else {
                throw Self.refusal(.badRequest, "invalid_request", "client_id and client_secret are required")
            }
            self.grant = .clientCredentials(id: clientID, secret: clientSecret)
        default:
            throw Self.refusal(.badRequest, "unsupported_grant_type", "grant_type must be password or client_credentials")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        let body: [String: JSONValue] =
            switch grant {
            case .password(let email, let password): ["grant_type": "password", "email": .string(email), "password": .string(password)]
            case .clientCredentials(let id, let secret):
                ["grant_type": "client_credentials", "client_id": .string(id), "client_secret": .string(secret)]
            }
        try HTTPInput(body: .object(body)).encode(to: encoder)
    }

    /// The OAuth error of `reason` (`invalid_grant`), which the OYD style renders as `error` and `error_description`.
    public static func refusal(_ code: RPCError.Code, _ reason: String, _ message: String) -> RPCError {
        RPCError(code, reason: reason, message: message)
    }

    /// Form fields and JSON members alike, as text.
    static func fields(_ body: JSONValue) -> [String: String] {
        guard case .object(let members) = body else { return [:] }
        return members.compactMapValues { value in
            switch value {
            case .string(let text): text
            case .int(let number): String(number)
            default: nil
            }
        }
    }

    /// `Basic base64(id:secret)`, each half percent-decoded (RFC 6749, 2.3.1).
    static func basic(_ authorization: String?) -> (String?, String?)? {
        guard let authorization, authorization.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: String(authorization.dropFirst(6)).trimmingCharacters(in: .whitespaces)).flatMap({
                String(data: $0, encoding: .utf8)
            }),
            let colon = decoded.firstIndex(of: ":")
        else { return nil }
        return (String(decoded[..<colon]).removingPercentEncoding, String(decoded[decoded.index(after: colon)...]).removingPercentEncoding)
    }
}

/// An access token as `POST /oauth/token` answers it.
public struct OAuthToken: RoutedJSON, Equatable {
    public var access_token: String
    public var token_type: String
    public var expires_in: Int
    public var created_at: Int64
    public var username: String?

    public init(access_token: String, token_type: String = "bearer", expires_in: Int, created_at: Int64, username: String?) {
        self.access_token = access_token
        self.token_type = token_type
        self.expires_in = expires_in
        self.created_at = created_at
        self.username = username
    }
}
