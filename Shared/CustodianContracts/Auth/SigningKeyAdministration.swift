import CustodianHTTP
import CustodianJSON
import CustodianRPC

/// The keys access tokens are signed with, as owners rotate them (docs/jwt.md, "Rotating the signing key"): a new key is
/// published first and signs only once every gateway has it; a key that no longer signs is retired once the tokens it
/// signed have expired, or sooner by force.
extension AuthMethods {
    public static let signingKeysList = RoutedMethod<NoInput, SigningKeyList>("auth.signingKeys.list", retry: .safe)
    public static let signingKeysRotate = RoutedMethod<NoInput, SigningKeyInfo>("auth.signingKeys.rotate")
    public static let signingKeysRetire = RoutedMethod<SigningKeyRetirement, SigningKeyInfo>("auth.signingKeys.retire", retry: .safe)
}

/// Where a key is in its life.
public enum SigningKeyState: String, Codable, Sendable, CaseIterable {
    /// In the key set, so gateways accept it, but not signing yet (until `signs_from`).
    case published
    /// The key new tokens are signed with.
    case signing
    /// Superseded by a newer key; the tokens it signed still verify.
    case verifying
    /// Out of the key set: tokens it signed are refused.
    case retired
}

/// One signing key as owners see it: never the key itself. Times are ISO 8601 in UTC, to the second.
public struct SigningKeyInfo: RoutedJSON, Equatable {
    public var kid: String
    public var state: SigningKeyState
    public var created_at: String
    /// When it began (or begins) to sign.
    public var signs_from: String
    /// When the next key took (or takes) over; null while no newer key is published.
    @ExplicitNull public var superseded_at: String?
    /// When the last token it signed expires (`superseded_at` + the longest token lifetime): from then on retiring it
    /// refuses no token. Null while no newer key is published.
    @ExplicitNull public var retirable_at: String?
    @ExplicitNull public var retired_at: String?

    public init(
        kid: String, state: SigningKeyState, created_at: String, signs_from: String, superseded_at: String?, retirable_at: String?,
        retired_at: String?
    ) {
        self.kid = kid
        self.state = state
        self.created_at = created_at
        self.signs_from = signs_from
        self.superseded_at = superseded_at
        self.retirable_at = retirable_at
        self.retired_at = retired_at
    }
}

/// `GET /admin/v1/signing-keys`: every key, newest first, with the two durations rotation is timed by.
public struct SigningKeyList: RoutedJSON, Equatable {
    public var keys: [SigningKeyInfo]
    /// Seconds a copy of the key set may be kept (`CUSTODIAN_JWT_KEY_SET_MAX_AGE`); a new key signs twice this long
    /// after it is published.
    public var key_set_max_age: Int
    /// Seconds the longest-lived access token is valid.
    public var longest_token_lifetime: Int

    public init(keys: [SigningKeyInfo], key_set_max_age: Int, longest_token_lifetime: Int) {
        self.keys = keys
        self.key_set_max_age = key_set_max_age
        self.longest_token_lifetime = longest_token_lifetime
    }
}

/// `DELETE /admin/v1/signing-keys/{kid}`, with `?force=true` to retire a key whose tokens may still be valid.
public struct SigningKeyRetirement: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var kid: String
    public var force: Bool

    public init(kid: String, force: Bool = false) {
        self.kid = kid
        self.force = force
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        kid = try request.path("kid")
        force = try request.booleanQuery("force") ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(path: ["kid": kid], query: force ? ["force": ["true"]] : [:]).encode(to: encoder)
    }
}
