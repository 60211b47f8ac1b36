import CustodianRPC
import Foundation

/// Builds the links that carry an activation token to an app, from named URL templates. The Twomes app reads
/// its account token from a Firebase-Dynamic-Link-style URL (seed 004, step A3), the default template
/// `twomes-account`; since Firebase Dynamic Links stopped working on 2025-08-25, a deployment names its own
/// templates (its app link, or this platform's `/l/` resolver) and picks one per use.
public struct ActivationLinks: Sendable {
    /// `{token}` is replaced by the URL-encoded token.
    public static let twomesAccountTemplate =
        "https://energietransitiewindesheim.page.link/?link=https%3A%2F%2Faccount%2F{token}"
        + "&apn=nl.windesheim.energietransitie.warmtewachter&ibi=nl.windesheim.energietransitie.warmtewachter&isi=1563201993&efr=1"

    public static let defaultTemplateName = "twomes-account"

    public let templates: [String: String]

    /// `templates` are by name; `twomes-account` is always there (overridable).
    public init(templates: [String: String] = [:]) throws {
        var all = [Self.defaultTemplateName: Self.twomesAccountTemplate]
        for (name, template) in templates {
            guard template.contains("{token}") else {
                throw RPCError.badRequest("the activation URL template \(name) must contain {token}")
            }
            all[name] = template
        }
        self.templates = all
    }

    /// Templates from the environment: `CUSTODIAN_LINK_TEMPLATE_<NAME>` names template `<name>` (lower case,
    /// `_` as `-`); `CUSTODIAN_ACCOUNT_ACTIVATION_URL_TEMPLATE` overrides `twomes-account`.
    public init(configuration: [String: String]) throws {
        var templates: [String: String] = [:]
        let prefix = "CUSTODIAN_LINK_TEMPLATE_"
        for (key, value) in configuration where key.hasPrefix(prefix) && !value.isEmpty {
            templates[key.dropFirst(prefix.count).lowercased().replacingOccurrences(of: "_", with: "-")] = value
        }
        if let account = configuration["CUSTODIAN_ACCOUNT_ACTIVATION_URL_TEMPLATE"], !account.isEmpty {
            templates[Self.defaultTemplateName] = account
        }
        try self.init(templates: templates)
    }

    public func url(template name: String = Self.defaultTemplateName, token: String) throws -> String {
        guard let template = templates[name] else {
            throw RPCError.badRequest("unknown activation link template '\(name)'", reason: "unknown_template")
        }
        return template.replacingOccurrences(of: "{token}", with: Self.urlEncode(token))
    }

    /// Percent-encodes everything but RFC 3986's unreserved ASCII characters (a space becomes %20).
    static func urlEncode(_ value: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
