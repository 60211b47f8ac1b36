import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation

/// `POST /account` as the Twomes backend takes it (docs/twomes.md, "POST /account").
struct CreateAccountRequest: Decodable {
    var pseudonym: Int?
    var location: Location?
    var timezone: String?
    /// Which of the two names the client used, to point a validation error at it.
    var timezoneKey = "timezone"

    struct Location: Decodable {
        var latitude: Double
        var longitude: Double
    }

    enum CodingKeys: String, CodingKey { case pseudonym, location, timezone, tz_name }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pseudonym = try container.decodeIfPresent(LenientInteger.self, forKey: .pseudonym)?.value
        location = try container.decodeIfPresent(Location.self, forKey: .location)
        // The backend calls it tz_name; the provisioning steps say timezone. Both are accepted (docs/twomes.md, "POST /account").
        if let timezone = try container.decodeIfPresent(String.self, forKey: .timezone) {
            self.timezone = timezone
        } else {
            timezone = try container.decodeIfPresent(String.self, forKey: .tz_name)
            timezoneKey = "tz_name"
        }
    }

    static let pseudonymRange = 800_000...899_999
    /// Assendorp, Zwolle.
    static let defaultLocation = Location(latitude: 52.50655, longitude: 6.09961)
    static let defaultTimezone = "Europe/Amsterdam"

    /// The same checks, and messages, as the backend's pydantic model.
    func validated() throws -> (pseudonym: Int?, location: Location, timezone: String) {
        if let pseudonym {
            if pseudonym < Self.pseudonymRange.lowerBound {
                throw RPCError.validation(location: ["body", "pseudonym"], message: "ensure this value is greater than or equal to 800000", type: "value_error.number.not_ge")
            }
            if pseudonym > Self.pseudonymRange.upperBound {
                throw RPCError.validation(location: ["body", "pseudonym"], message: "ensure this value is less than or equal to 899999", type: "value_error.number.not_le")
            }
        }
        let location = self.location ?? Self.defaultLocation
        guard (-90...90).contains(location.latitude) else {
            throw RPCError.validation(location: ["body", "location", "latitude"], message: "latitude must be between -90 and 90")
        }
        guard (-180...180).contains(location.longitude) else {
            throw RPCError.validation(location: ["body", "location", "longitude"], message: "longitude must be between -180 and 180")
        }
        let timezone = self.timezone ?? Self.defaultTimezone
        guard Self.isTimeZoneName(timezone) else {
            throw RPCError.validation(location: ["body", timezoneKey], message: "illegal time zone")
        }
        // Coarse on purpose: two decimals are about a kilometre, never a street address.
        let coarse = Location(latitude: (location.latitude * 100).rounded() / 100, longitude: (location.longitude * 100).rounded() / 100)
        return (pseudonym, coarse, timezone)
    }

    /// A TZ database name such as `Europe/Amsterdam` (abbreviations like `CET` are not names).
    static func isTimeZoneName(_ name: String) -> Bool {
        (name.contains("/") || name == "UTC") && TimeZone(identifier: name) != nil
    }
}

struct CreateAccountResponse: Codable, Sendable {
    var id: Int64
    var pseudonym: Int
    var activation_token: String
    var firebase_url: String
}

struct ActivateRequest: Decodable {
    var activation_token: String
}

struct AccountSession: Codable, Sendable {
    var session_token: String
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
