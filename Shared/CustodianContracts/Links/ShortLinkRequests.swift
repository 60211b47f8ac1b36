import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation

/// `POST /admin/v1/links`: the body in the admin API's snake_case, as a ``ShortLinkInput``; what it cannot read is a
/// 400 in the links routes' words (``RequestDecoding/links``).
public struct AdminShortLinkRequest: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .links }

    public var link: ShortLinkInput

    public init(link: ShortLinkInput) {
        self.link = link
    }

    enum CodingKeys: String, CodingKey { case app_url, title, ttl_seconds, android_store_url, ios_store_url }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        guard case .object = try request.body(JSONValue.self) else {
            throw RPCError.badRequest("The body must be a JSON object such as {\"app_url\": \"https://…\"}", reason: "malformed_body")
        }
        let body = try request.body(keyedBy: CodingKeys.self)
        link = ShortLinkInput(
            appURL: try body.decode(String.self, forKey: .app_url), title: try body.decodeIfPresent(String.self, forKey: .title),
            ttlSeconds: try body.decodeIfPresent(Int.self, forKey: .ttl_seconds),
            androidStoreURL: try body.decodeIfPresent(String.self, forKey: .android_store_url),
            iosStoreURL: try body.decodeIfPresent(String.self, forKey: .ios_store_url))
    }

    public func encode(to encoder: any Encoder) throws {
        var body: [String: JSONValue] = ["app_url": .string(link.appURL)]
        body["title"] = link.title.map { .string($0) }
        body["ttl_seconds"] = link.ttlSeconds.map { .int(Int64($0)) }
        body["android_store_url"] = link.androidStoreURL.map { .string($0) }
        body["ios_store_url"] = link.iosStoreURL.map { .string($0) }
        try HTTPInput(body: .object(body)).encode(to: encoder)
    }
}

/// `GET /admin/v1/links?q=…&limit=100&before=…`: a page of short links, newest first.
public struct ShortLinksQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    /// The start of the links' titles or codes wanted, in any case (the service says which codes it matches).
    public var search: String?
    public var limit: Int64
    /// Where the previous page ended: `<microseconds since 1970>-<SHA-256 of the code, hex>`, as `next_before` gives it.
    public var before: Cursor?

    public struct Cursor: Sendable, Equatable {
        public var micros: Int64
        /// Lowercase hex.
        public var digest: String

        public init(micros: Int64, digest: String) {
            self.micros = micros
            self.digest = digest
        }

        init(_ text: String) throws {
            let parts = text.split(separator: "-", maxSplits: 1)
            guard parts.count == 2, let micros = PageCursor.micros(parts[0]), parts[1].utf8.count == 64, parts[1].allSatisfy(\.isHexDigit) else {
                throw RPCError.badRequest("before must be a next_before value of an earlier page", reason: "invalid_query")
            }
            self.init(micros: micros, digest: parts[1].lowercased())
        }

        public var text: String { "\(micros)-\(digest)" }
    }

    /// A title has at most 200 characters (``ShortLinkInput/maximumTitleLength``).
    public static let maximumSearchLength = ShortLinkInput.maximumTitleLength

    public init(search: String? = nil, limit: Int64 = 100, before: Cursor? = nil) {
        self.search = search
        self.limit = limit
        self.before = before
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        search = try request.searchPrefix(maximumLength: Self.maximumSearchLength)
        limit = try request.integerQuery("limit", default: 100, in: 1...1000)
        before = try request.singleQuery("before").map(Cursor.init)
    }

    public func encode(to encoder: any Encoder) throws {
        var query = ["limit": [String(limit)]]
        query["q"] = search.map { [$0] }
        query["before"] = before.map { [$0.text] }
        try HTTPInput(query: query).encode(to: encoder)
    }
}

/// A page of short links. A link's code is its only secret (an account's activation link opens the account), so only
/// its first characters are shown.
public struct ShortLinkPage: RoutedJSON, Equatable {
    public var links: [Entry]
    /// Pass as `before` for the next (older) page; null on the last one.
    @ExplicitNull public var next_before: String?

    public struct Entry: Codable, Sendable, Equatable {
        public var code_prefix: String
        @ExplicitNull public var title: String?
        public var created_at: String
        @ExplicitNull public var expires_at: String?
        public var expired: Bool

        public init(code_prefix: String, title: String?, created_at: String, expires_at: String?, expired: Bool) {
            self.code_prefix = code_prefix
            self.title = title
            self.created_at = created_at
            self.expires_at = expires_at
            self.expired = expired
        }
    }

    public init(links: [Entry], next_before: String?) {
        self.links = links
        self.next_before = next_before
    }
}

/// `GET /l/{code}`: a short link opened, by a phone or a desktop browser (told by its `User-Agent`).
public struct ShortLinkVisit: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var code: String
    public var userAgent: String?

    public init(code: String, userAgent: String? = nil) {
        self.code = code
        self.userAgent = userAgent
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        code = try request.path("code")
        userAgent = try request.header("user-agent")
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(path: ["code": code], headers: userAgent.map { ["user-agent": $0] } ?? [:]).encode(to: encoder)
    }
}

/// `DELETE /admin/v1/links/{code}`: a short link revoked (docs/erasure.md); its code then answers 404 like one never
/// made, and its sealed app URL is gone. `devices` calls it too, for an erased account's activation link.
public struct ShortLinkRevocation: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .links }

    public var code: String

    public init(code: String) {
        self.code = code
    }

    public init(from decoder: any Decoder) throws {
        code = try RequestReader(decoder).path("code")
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(path: ["code": code]).encode(to: encoder)
    }
}
