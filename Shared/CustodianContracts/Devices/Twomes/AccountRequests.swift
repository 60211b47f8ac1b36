import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation

/// `POST /account` as the Twomes backend takes it (docs/twomes.md, "POST /account"), with its pydantic model's checks and messages.
/// The body may be left out: everything has a default.
public struct CreateAccountRequest: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    /// Nil: the server chooses a free one.
    public var pseudonym: Int?
    public var location: Location
    /// A TZ database name (`Europe/Amsterdam`).
    public var timezone: String

    public struct Location: Codable, Sendable, Equatable {
        public var latitude: Double
        public var longitude: Double

        public init(latitude: Double, longitude: Double) {
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    public static let pseudonymRange = 800_000...899_999
    /// Assendorp, Zwolle.
    public static let defaultLocation = Location(latitude: 52.50655, longitude: 6.09961)
    public static let defaultTimezone = "Europe/Amsterdam"

    public init(pseudonym: Int? = nil, location: Location = Self.defaultLocation, timezone: String = Self.defaultTimezone) {
        self.pseudonym = pseudonym
        self.location = location
        self.timezone = timezone
    }

    enum CodingKeys: String, CodingKey { case pseudonym, location, timezone, tz_name }

    /// Every member first, then the checks, in the backend's order.
    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        guard try !request.body(JSONValue.self).isNull else {
            self.init()
            return
        }
        try self.init(members: request.body(keyedBy: CodingKeys.self))
    }

    /// One account's members where they sit (the body of `POST /account`, an item of a cohort's `accounts`), checked
    /// as the backend checks them; a problem's location is the member's there.
    init(members body: KeyedDecodingContainer<CodingKeys>) throws {
        let pseudonym = try body.decodeIfPresent(LenientInteger.self, forKey: .pseudonym)?.value
        let location = try body.decodeIfPresent(Location.self, forKey: .location) ?? Self.defaultLocation
        // The backend calls it tz_name; the issue and the document say timezone. Both are accepted.
        var timezoneKey = CodingKeys.timezone
        var timezone = try body.decodeIfPresent(String.self, forKey: .timezone)
        if timezone == nil {
            timezone = try body.decodeIfPresent(String.self, forKey: .tz_name)
            timezoneKey = .tz_name
        }
        let account = CreateAccountRequest(pseudonym: pseudonym, location: location, timezone: timezone ?? Self.defaultTimezone)
        if let problem = account.problem {
            let member: [String] =
                switch problem.field {
                case .pseudonym: ["pseudonym"]
                case .latitude: ["location", "latitude"]
                case .longitude: ["location", "longitude"]
                case .timezone: [timezoneKey.stringValue]
                }
            throw RPCError.validation(location: RequestDecoding.location(body.codingPath) + member, message: problem.message, type: problem.type)
        }
        self = account
    }

    /// A field of an account that can be wrong.
    public enum Field: String, Sendable, CaseIterable {
        case pseudonym, latitude, longitude, timezone
    }

    /// What is wrong with an account, in the backend's words.
    public struct Problem: Sendable, Equatable {
        public var field: Field
        public var message: String
        public var type: String
    }

    /// The backend's checks, in its order: the first problem, nil when there is none. The one place they are made,
    /// whichever way the account came (`POST /account`, a cohort's JSON or CSV).
    public var problem: Problem? {
        if let pseudonym {
            if pseudonym < Self.pseudonymRange.lowerBound {
                return Problem(field: .pseudonym, message: "ensure this value is greater than or equal to 800000", type: "value_error.number.not_ge")
            }
            if pseudonym > Self.pseudonymRange.upperBound {
                return Problem(field: .pseudonym, message: "ensure this value is less than or equal to 899999", type: "value_error.number.not_le")
            }
        }
        guard (-90...90).contains(location.latitude) else {
            return Problem(field: .latitude, message: "latitude must be between -90 and 90", type: "value_error")
        }
        guard (-180...180).contains(location.longitude) else {
            return Problem(field: .longitude, message: "longitude must be between -180 and 180", type: "value_error")
        }
        guard Self.isTimeZoneName(timezone) else { return Problem(field: .timezone, message: "illegal time zone", type: "value_error") }
        return nil
    }

    public func encode(to encoder: any Encoder) throws {
        var body: [String: JSONValue] = [
            "location": ["latitude": .double(location.latitude), "longitude": .double(location.longitude)], "timezone": .string(timezone),
        ]
        body["pseudonym"] = pseudonym.map { .int(Int64($0)) }
        try HTTPInput(body: .object(body)).encode(to: encoder)
    }

    /// A TZ database name such as `Europe/Amsterdam` (abbreviations like `CET` are not names).
    static func isTimeZoneName(_ name: String) -> Bool {
        (name.contains("/") || name == "UTC") && TimeZone(identifier: name) != nil
    }
}

public struct CreateAccountResponse: RoutedJSON, Equatable {
    public var id: Int64
    public var pseudonym: Int
    public var activation_token: String
    public var firebase_url: String

    public init(id: Int64, pseudonym: Int, activation_token: String, firebase_url: String) {
        self.id = id
        self.pseudonym = pseudonym
        self.activation_token = activation_token
        self.firebase_url = firebase_url
    }
}

/// `POST /account/activate` (C4): the activation token from the account's link, as it came.
public struct AccountActivation: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var activationToken: String

    public init(activationToken: String) {
        self.activationToken = activationToken
    }

    enum CodingKeys: String, CodingKey { case activation_token }

    public init(from decoder: any Decoder) throws {
        activationToken = try RequestReader(decoder).body(keyedBy: CodingKeys.self).decode(String.self, forKey: .activation_token)
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(body: ["activation_token": .string(activationToken)]).encode(to: encoder)
    }
}

/// The session token the app (an account) or a device gets when it activates.
public struct SessionToken: RoutedJSON, Equatable {
    public var session_token: String

    public init(session_token: String) {
        self.session_token = session_token
    }
}

/// An integer as pydantic takes it: a JSON integer, a number without a fraction, or a numeric string.
struct LenientInteger: Decodable {
    var value: Int

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        switch try container.decode(JSONValue.self) {
        case .int(let integer) where Int(exactly: integer) != nil:
            value = Int(integer)
        case .double(let number) where number.rounded() == number && Int(exactly: number) != nil:
            value = Int(number)
        case .string(let text) where Int(text.trimmingCharacters(in: .whitespaces)) != nil:
            value = Int(text.trimmingCharacters(in: .whitespaces))!
        default:
            throw DecodingError.typeMismatch(Int.self, .init(codingPath: decoder.codingPath, debugDescription: "not an integer"))
        }
    }
}
