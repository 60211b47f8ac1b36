import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation

/// `POST /api/v1/devices` as an app sends it, checked for form before any key is touched (docs/lemon.md,
/// "The handshake: `POST /api/v1/devices`"), member by member in the document's order. Keys match in any case.
public struct LemonHandshakeRequest: RoutedInput {
    public static var decoding: RequestDecoding { .lemon }

    public var appId: String
    public var publicKey: String?
    public var operatingSystem: String?
    public var pushToken: String?
    public var language: String?
    /// Base64 of ``seedLength`` bytes.
    public var seed: String
    public var seedBytes: [UInt8]
    /// Form only: whether it opens is decided with the key, as a failed authentication.
    public var preMasterSecret: String
    public var signature: String

    /// The client's seed: as long as the one `SessionKeys` derives a session's keys from.
    public static let seedLength = 32
    public static let maximumAppIdLength = 200

    /// Whether the request carries what only a registration may carry.
    public var hasRegistrationFields: Bool { publicKey != nil || operatingSystem != nil || pushToken != nil }

    public enum Member: String, LemonMember {
        case appId = "AppId", signature = "Signature", pushToken = "PushToken", seed = "Seed", language = "Language"
        case preMasterSecret = "PreMasterSecret", publicKey = "PublicKey", operatingSystem = "OperatingSystem"

        public var refusal: String {
            switch self {
            case .appId: "Invalid Hashed App Instance ID"
            case .signature: "Missing digital signature"
            case .pushToken: "Invalid push token"
            case .seed: "Invalid seed"
            // Whether it is a language apps are served in is the statistics service's to say.
            case .language: "Invalid alpha2 (language)"
            case .preMasterSecret: "Invalid pre-master-secret"
            case .publicKey: "Invalid public key"
            case .operatingSystem: "Invalid operating system"
            }
        }

        func refused() -> RPCError { RPCError.badRequest(refusal) }
    }

    public init(from decoder: any Decoder) throws {
        let body = try RequestReader(decoder).lemonBody(keyedBy: Member.self)
        guard let appId = try body.decodeIfPresent(String.self, forKey: .appId), Self.isValidAppId(appId) else { throw Member.appId.refused() }
        self.appId = appId
        guard let signature = try body.decodeIfPresent(String.self, forKey: .signature), !signature.isEmpty else {
            throw Member.signature.refused()
        }
        self.signature = signature
        pushToken = try body.decodeIfPresent(String.self, forKey: .pushToken)
        if let pushToken, let problem = PushToken.problem(pushToken) { throw RPCError.badRequest("Invalid push token: \(problem)") }
        guard let seed = try body.decodeIfPresent(String.self, forKey: .seed), let seedBytes = Data(base64Encoded: seed),
            seedBytes.count == Self.seedLength
        else {
            throw Member.seed.refused()
        }
        self.seed = seed
        self.seedBytes = Array(seedBytes)
        language = try body.decodeIfPresent(String.self, forKey: .language)
        preMasterSecret = try body.decodeIfPresent(String.self, forKey: .preMasterSecret) ?? ""
        publicKey = try body.decodeIfPresent(String.self, forKey: .publicKey)
        operatingSystem = try body.decodeIfPresent(String.self, forKey: .operatingSystem)
    }

    public func encode(to encoder: any Encoder) throws {
        var body: [String: JSONValue] = [
            Member.appId.rawValue: .string(appId), Member.signature.rawValue: .string(signature), Member.seed.rawValue: .string(seed),
            Member.preMasterSecret.rawValue: .string(preMasterSecret),
        ]
        body[Member.pushToken.rawValue] = pushToken.map { .string($0) }
        body[Member.language.rawValue] = language.map { .string($0) }
        body[Member.publicKey.rawValue] = publicKey.map { .string($0) }
        body[Member.operatingSystem.rawValue] = operatingSystem.map { .string($0) }
        try HTTPInput(body: .object(body)).encode(to: encoder)
    }

    /// A random instance identifier (or its hash) as the apps make them: printable ASCII without spaces.
    public static func isValidAppId(_ value: String) -> Bool {
        (8...maximumAppIdLength).contains(value.utf8.count) && value.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// IOS or Android, in the spelling docs/lemon.md gives; other casings are read as those.
    public static func operatingSystem(_ value: String) -> String? {
        switch value.lowercased() {
        case "ios": "IOS"
        case "android": "Android"
        default: nil
        }
    }
}

/// The handshake's answer, in the field names docs/lemon.md gives.
public struct HandshakeResponse: RoutedJSON {
    public var accessToken: String
    public var accessTokenExpiry: String
    public var seed: String
    public var signature: String
    /// Which pinned key made `Signature`, for apps that pin more than one generation.
    public var keyId: String

    public init(accessToken: String, accessTokenExpiry: String, seed: String, signature: String, keyId: String) {
        self.accessToken = accessToken
        self.accessTokenExpiry = accessTokenExpiry
        self.seed = seed
        self.signature = signature
        self.keyId = keyId
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "AccessToken", accessTokenExpiry = "AccessTokenExpiry", seed = "Seed", signature = "Signature", keyId = "KeyId"
    }

    /// UTC, ISO 8601 to the second: `2026-11-22T14:05:09Z`.
    public static func expiryText(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
