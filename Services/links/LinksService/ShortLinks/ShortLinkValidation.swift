import CustodianContracts
import CustodianRPC
import CustodianWeb
import Foundation

/// What the links service checks of a short link's input, with the field names the caller used.
extension ShortLinkInput {
    /// The names a caller used for the members, so that errors point at what they sent.
    struct FieldNames: Sendable {
        var appURL, title, ttlSeconds, androidStoreURL, iosStoreURL: String

        static let rpc = FieldNames(
            appURL: "appURL", title: "title", ttlSeconds: "ttlSeconds",
            androidStoreURL: "androidStoreURL", iosStoreURL: "iosStoreURL")
        static let admin = FieldNames(
            appURL: "app_url", title: "title", ttlSeconds: "ttl_seconds",
            androidStoreURL: "android_store_url", iosStoreURL: "ios_store_url")
    }

    /// The input with defaults filled in and the title trimmed, or a 400 naming the first bad member.
    func validated(names: FieldNames, defaults: ShortLinkSettings) throws -> ShortLinkInput {
        var input = self
        try Self.checkURL(appURL, name: names.appURL, webOnly: false)
        if let title {
            let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
            // Counted as PostgreSQL's length() counts: in code points.
            guard trimmed.unicodeScalars.count <= Self.maximumTitleLength else {
                throw RPCError.badRequest("\(names.title) must have at most \(Self.maximumTitleLength) characters", reason: "invalid_title")
            }
            guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw RPCError.badRequest("\(names.title) must not contain control characters", reason: "invalid_title")
            }
            input.title = trimmed.isEmpty ? nil : trimmed
        }
        if let ttlSeconds, !Self.ttlRange.contains(ttlSeconds) {
            throw RPCError.badRequest(
                "\(names.ttlSeconds) must be from \(Self.ttlRange.lowerBound) to \(Self.ttlRange.upperBound) seconds (a year and a day), not \(ttlSeconds)",
                reason: "invalid_ttl")
        }
        let android = androidStoreURL ?? defaults.androidStoreURL
        let ios = iosStoreURL ?? defaults.iosStoreURL
        try Self.checkURL(android, name: names.androidStoreURL, webOnly: true)
        try Self.checkURL(ios, name: names.iosStoreURL, webOnly: true)
        input.androidStoreURL = android
        input.iosStoreURL = ios
        return input
    }

    /// Schemes a browser would run or read locally instead of opening an app.
    static let forbiddenSchemes: Set<String> = ["javascript", "data", "vbscript", "file", "blob", "about", "filesystem"]

    /// An absolute URL without spaces or control characters (it goes into a `Location` header and an `href`),
    /// of a scheme that opens an app or a web page; `webOnly` asks for `http(s)://host…`.
    static func checkURL(_ text: String, name: String, webOnly: Bool) throws {
        let kind =
            webOnly
            ? "an absolute http(s) URL such as https://example.org/app"
            : "an absolute URL such as https://example.org/a/b or warmtewachter://activate?token=…"
        guard !text.isEmpty, text.unicodeScalars.count <= maximumURLLength else {
            throw RPCError.badRequest("\(name) must be \(kind) of at most \(maximumURLLength) characters", reason: "invalid_url")
        }
        guard let url = WebURL.parse(text, maximumLength: maximumURLLength), let scheme = url.scheme?.lowercased(),
            !forbiddenSchemes.contains(scheme)
        else {
            throw RPCError.badRequest("\(name) must be \(kind)", reason: "invalid_url")
        }
        if webOnly || scheme == "http" || scheme == "https" {
            guard scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty else {
                throw RPCError.badRequest("\(name) must be \(kind)", reason: "invalid_url")
            }
        }
    }
}
