import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation

/// `POST /admin/v1/api-consumers {"name"}`: a new geotag API consumer.
public struct CreateConsumerRequest: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public static let maximumNameLength = 100

    /// Trimmed.
    public var name: String

    public init(name: String) {
        self.name = name
    }

    enum CodingKeys: String, CodingKey { case name }

    public init(from decoder: any Decoder) throws {
        let given = try RequestReader(decoder).body(keyedBy: CodingKeys.self).decode(String.self, forKey: .name)
        guard let name = Self.validName(given) else {
            throw RPCError.validation(
                location: ["body", "name"], message: "a name has 1 to \(Self.maximumNameLength) characters and no control characters")
        }
        self.name = name
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(body: ["name": .string(name)]).encode(to: encoder)
    }

    /// The name trimmed, when it has 1 to 100 characters and no control characters (the admin route and
    /// `custodian admin create-consumer`).
    public static func validName(_ text: String) -> String? {
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...maximumNameLength).contains(name.count),
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { return nil }
        return name
    }
}

/// What an admin gets once, at creation: the secret cannot be read back through the API.
public struct CreatedConsumer: RoutedJSON, Equatable {
    public var consumer_key: String
    public var consumer_secret: String
    public var name: String
    public var created_at: String

    public init(consumer_key: String, consumer_secret: String, name: String, created_at: String) {
        self.consumer_key = consumer_key
        self.consumer_secret = consumer_secret
        self.name = name
        self.created_at = created_at
    }
}

/// `GET /admin/v1/api-consumers`: keys and names, never secrets.
public struct ConsumerList: RoutedJSON, Equatable {
    public var consumers: [Consumer]

    public struct Consumer: Codable, Sendable, Equatable {
        public var consumer_key: String
        public var name: String
        public var created_at: String
        /// When its key was revoked; null while it signs requests.
        @ExplicitNull public var revoked_at: String?

        public init(consumer_key: String, name: String, created_at: String, revoked_at: String? = nil) {
            self.consumer_key = consumer_key
            self.name = name
            self.created_at = created_at
            self.revoked_at = revoked_at
        }
    }

    public init(consumers: [Consumer]) {
        self.consumers = consumers
    }
}

/// `DELETE /admin/v1/api-consumers/{consumer_key}`: a consumer revoked (docs/erasure.md).
public struct ConsumerByKey: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var key: String

    public init(key: String) {
        self.key = key
    }

    public init(from decoder: any Decoder) throws {
        key = try RequestReader(decoder).path("consumer_key")
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(path: ["consumer_key": key]).encode(to: encoder)
    }
}
