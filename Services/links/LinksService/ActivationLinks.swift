import CustodianRPC
import Foundation

/// Builds the links that carry an activation token to an app. The Twomes app reads its account token from a
/// Firebase-Dynamic-Link-style URL (seed 004, step A3); the template is configurable so that a deployment
/// can point at its own resolver, since Firebase Dynamic Links stopped working on 2025-08-25.
public struct ActivationLinks: Sendable {
    /// `{token}` is replaced by the URL-encoded token.
    public static let twomesAccountTemplate =
        "https://energietransitiewindesheim.page.link/?link=https%3A%2F%2Faccount%2F{token}"
        + "&apn=nl.windesheim.energietransitie.warmtewachter&ibi=nl.windesheim.energietransitie.warmtewachter&isi=1563201993&efr=1"

    public let accountTemplate: String

    public init(accountTemplate: String = Self.twomesAccountTemplate) throws {
        guard accountTemplate.contains("{token}") else {
            throw RPCError.badRequest("an activation URL template must contain {token}")
        }
        self.accountTemplate = accountTemplate
    }

    public func accountActivationURL(token: String) -> String {
        accountTemplate.replacingOccurrences(of: "{token}", with: Self.urlEncode(token))
    }

    /// Percent-encodes everything but unreserved characters, as Python's `quote_plus` does for tokens.
    static func urlEncode(_ value: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}

public struct MintActivationLinkInput: Codable, Sendable {
    /// What the token activates: `account`.
    public var kind: String
    public var token: String

    public init(kind: String, token: String) {
        self.kind = kind
        self.token = token
    }
}

public struct ActivationLink: Codable, Sendable {
    public var url: String

    public init(url: String) {
        self.url = url
    }
}
