import CustodianHTTP
import CustodianJSON
import CustodianRPC

/// `POST /api/v1/devices/active?status=true|false`: the app (de)activates itself.
public struct LemonDeviceStatus: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .lemon }

    public var active: Bool

    public init(active: Bool) {
        self.active = active
    }

    public init(from decoder: any Decoder) throws {
        let values = try RequestReader(decoder).query("status")
        guard values.count == 1, let active = ["true": true, "false": false][values[0].lowercased()] else {
            throw RPCError.badRequest("Invalid status value: status must be true or false")
        }
        self.active = active
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(query: ["status": [String(active)]]).encode(to: encoder)
    }
}

/// `POST /api/v1/devices/push_token`: the app's new push token (`PushToken`, in any case).
public struct LemonPushTokenUpdate: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .lemon }

    public var pushToken: String

    public init(pushToken: String) {
        self.pushToken = pushToken
    }

    enum Member: String, LemonMember {
        case pushToken = "PushToken"

        var refusal: String { PushToken.missing }
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        guard case .object = try request.body(JSONValue.self) else { throw RPCError.badRequest(PushToken.missing) }
        let token = try request.lemonBody(keyedBy: Member.self).decodeIfPresent(String.self, forKey: .pushToken)
        if let problem = PushToken.problem(token) { throw RPCError.badRequest(problem) }
        pushToken = token ?? ""
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(body: [Member.pushToken.rawValue: .string(pushToken)]).encode(to: encoder)
    }
}

/// The push-token rules of `POST /api/v1/devices/push_token`, also applied at registration.
public enum PushToken {
    public static let lengths = 5...500
    static let missing = "Token is null or an empty string"

    public static func problem(_ token: String?) -> String? {
        guard let token, !token.isEmpty else { return missing }
        if token.count < lengths.lowerBound { return "Token is less than 5 characters long" }
        if token.count > lengths.upperBound { return "Token is greater than 500 characters long" }
        return nil
    }
}

/// `GET /api/v1/keys`: the server's handshake keys' public halves (docs/lemon.md).
public struct LemonPublishedKeys: RoutedJSON, Equatable {
    /// The generation that signs handshake answers now; the others still open pre-master secrets.
    public var currentKeyId: String
    public var keys: [Key]

    public struct Key: Codable, Sendable, Equatable {
        public var keyId: String
        public var encryptionKey: String
        public var signingKey: String

        public init(keyId: String, encryptionKey: String, signingKey: String) {
            self.keyId = keyId
            self.encryptionKey = encryptionKey
            self.signingKey = signingKey
        }

        enum CodingKeys: String, CodingKey { case keyId = "KeyId", encryptionKey = "EncryptionKey", signingKey = "SigningKey" }
    }

    public init(currentKeyId: String, keys: [Key]) {
        self.currentKeyId = currentKeyId
        self.keys = keys
    }

    enum CodingKeys: String, CodingKey { case currentKeyId = "CurrentKeyId", keys = "Keys" }
}
