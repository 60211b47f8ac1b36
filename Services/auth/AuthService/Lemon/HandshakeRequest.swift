import CustodianJSON
import CustodianLemon
import CustodianRPC
import Foundation

/// `POST /api/v1/devices` as an app sends it, checked for form before any key is touched (docs/lemon.md,
/// "The handshake: `POST /api/v1/devices`"). Keys match case-insensitively: the apps write `AppId`, others `appId`.
struct HandshakeRequest {
    var appId: String
    var publicKey: String?
    var operatingSystem: String?
    var pushToken: String?
    var language: String?
    var seed: String
    var seedBytes: [UInt8]
    var preMasterSecret: String
    var signature: String

    /// Whether the request carries what only a registration may carry.
    var hasRegistrationFields: Bool { publicKey != nil || operatingSystem != nil || pushToken != nil }

    static let maximumAppIdLength = 200

    init(_ body: JSONValue) throws {
        guard case .object(let raw) = body else { throw RPCError.badRequest("Missing request payload") }
        var fields: [String: JSONValue] = [:]
        for (key, value) in raw { fields[key.lowercased()] = value }
        func text(_ name: String, _ problem: String) throws -> String? {
            switch fields[name] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            default: throw RPCError.badRequest(problem)
            }
        }

        guard let appId = try text("appid", "Invalid Hashed App Instance ID"), Self.isValidAppId(appId) else {
            throw RPCError.badRequest("Invalid Hashed App Instance ID")
        }
        self.appId = appId
        guard let signature = try text("signature", "Missing digital signature"), !signature.isEmpty else {
            throw RPCError.badRequest("Missing digital signature")
        }
        self.signature = signature
        self.pushToken = try text("pushtoken", "Invalid push token")
        if let pushToken, let problem = PushToken.problem(pushToken) { throw RPCError.badRequest("Invalid push token: \(problem)") }
        guard let seed = try text("seed", "Invalid seed"), let seedBytes = Data(base64Encoded: seed),
            seedBytes.count == SessionKeys.seedLength
        else {
            throw RPCError.badRequest("Invalid seed")
        }
        self.seed = seed
        self.seedBytes = Array(seedBytes)
        // Whether it is a language apps are served in is the statistics service's to say (Handshake).
        self.language = try text("language", "Invalid alpha2 (language)")
        // Form only; whether the secret opens is decided with the key, as a failed authentication.
        self.preMasterSecret = try text("premastersecret", "Invalid pre-master-secret") ?? ""
        self.publicKey = try text("publickey", "Invalid public key")
        self.operatingSystem = try text("operatingsystem", "Invalid operating system")
    }

    /// A random instance identifier (or its hash) as the apps make them: printable ASCII without spaces.
    static func isValidAppId(_ value: String) -> Bool {
        (8...maximumAppIdLength).contains(value.utf8.count) && value.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// IOS or Android, in the spelling docs/lemon.md gives; other casings are read as those.
    static func operatingSystem(_ value: String) -> String? {
        switch value.lowercased() {
        case "ios": "IOS"
        case "android": "Android"
        default: nil
        }
    }
}

/// The push-token rules of `POST /api/v1/devices/push_token`, also applied at registration.
enum PushToken {
    static let lengths = 5...500

    static func problem(_ token: String?) -> String? {
        guard let token, !token.isEmpty else { return "Token is null or an empty string" }
        if token.count < lengths.lowerBound { return "Token is less than 5 characters long" }
        if token.count > lengths.upperBound { return "Token is greater than 500 characters long" }
        return nil
    }
}
