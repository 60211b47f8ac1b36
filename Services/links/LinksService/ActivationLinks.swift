import CustodianRPC
import Foundation

/// Builds the links that carry an activation token to an app, from named URL templates. The Twomes app read its
/// account token from a Firebase Dynamic Link (docs/twomes.md, "firebase_url"), the template `twomes-account`; Firebase Dynamic
/// Links stopped resolving on 2025-08-25, so accounts get this platform's own short link by default
/// (`twomes-short-link`: `<public base URL>/l/<code>`, which sends a phone to ``twomesAppTemplate``). A deployment
/// names further templates and picks one per use.
public struct ActivationLinks: Sendable {
    /// `{token}` is replaced by the URL-encoded token.
    public static let twomesAccountTemplate =
        "https://energietransitiewindesheim.page.link/?link=https%3A%2F%2Faccount%2F{token}"
        + "&apn=nl.windesheim.energietransitie.warmtewachter&ibi=nl.windesheim.energietransitie.warmtewachter&isi=1563201993&efr=1"

    /// Where the default short link sends a phone: the WarmteWachter app, with the path the Firebase link carried
    /// (`account/<token>`); `CUSTODIAN_ACCOUNT_APP_URL_TEMPLATE` names another.
    public static let twomesAppTemplate = "warmtewachter://account/{token}"

    public static let firebaseTemplateName = "twomes-account"
    public static let shortLinkTemplateName = "twomes-short-link"
    /// What an account's `firebase_url` is made from unless the caller names a template.
    public static let defaultTemplateName = shortLinkTemplateName

    public let templates: [String: String]
    /// The templates whose URL is where a short link of this platform sends the phone, not the link itself.
    public let shortLinkTemplates: Set<String>

    /// `templates` are by name; `twomes-account` (the Firebase link) and `twomes-short-link` are always there
    /// (overridable); `shortLinks` names the templates that are short links' app URLs.
    public init(templates: [String: String] = [:], shortLinks: Set<String> = []) throws {
        var all = [Self.firebaseTemplateName: Self.twomesAccountTemplate, Self.shortLinkTemplateName: Self.twomesAppTemplate]
        for (name, template) in templates {
            guard template.contains("{token}") else {
                throw RPCError.badRequest("the activation URL template \(name) must contain {token}")
            }
            all[name] = template
        }
        self.templates = all
        shortLinkTemplates = shortLinks.union([Self.shortLinkTemplateName])
    }

    /// Templates from the environment: `CUSTODIAN_LINK_TEMPLATE_<NAME>` names template `<name>` (lower case,
    /// `_` as `-`); `CUSTODIAN_ACCOUNT_ACTIVATION_URL_TEMPLATE` overrides `twomes-account` (the Firebase link) and
    /// `CUSTODIAN_ACCOUNT_APP_URL_TEMPLATE` the app URL `twomes-short-link` sends phones to.
    public init(configuration: [String: String]) throws {
        var templates: [String: String] = [:]
        let prefix = "CUSTODIAN_LINK_TEMPLATE_"
        for (key, value) in configuration where key.hasPrefix(prefix) && !value.isEmpty {
            templates[key.dropFirst(prefix.count).lowercased().replacingOccurrences(of: "_", with: "-")] = value
        }
        if let account = configuration["CUSTODIAN_ACCOUNT_ACTIVATION_URL_TEMPLATE"], !account.isEmpty {
            templates[Self.firebaseTemplateName] = account
        }
        if let app = configuration["CUSTODIAN_ACCOUNT_APP_URL_TEMPLATE"], !app.isEmpty {
            templates[Self.shortLinkTemplateName] = app
        }
        try self.init(templates: templates)
    }

    /// The template's text with the token in it: the link itself, or for a short-link template the app URL the short
    /// link is to send phones to.
    public func url(template name: String = Self.firebaseTemplateName, token: String) throws -> String {
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
