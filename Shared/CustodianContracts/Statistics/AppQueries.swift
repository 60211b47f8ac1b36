import CustodianHTTP
import CustodianRPC

/// `GET /api/v1/symptoms?language=xx`: the language as sent, nil for English. Whether it is a language apps are served
/// in is the service's to look up; both refusals have the same words.
public struct SymptomsQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .lemon }

    public var language: String?

    public init(language: String? = nil) {
        self.language = language
    }

    public init(from decoder: any Decoder) throws {
        language = try RequestReader(decoder).singleQuery("language").flatMap { $0.isEmpty ? nil : $0 }
        if let language, !Alpha2.isValid(language) { throw Self.unsupported(language) }
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(query: language.map { ["language": [$0]] } ?? [:]).encode(to: encoder)
    }

    public static func unsupported(_ language: String) -> RPCError {
        RPCError.badRequest("Invalid Alpha2 '\(Alpha2.clip(language))': not a supported language", reason: "invalid_alpha2")
    }
}

/// `GET /api/v1/countries?country=XX`: one country as sent, or nil for all of them.
public struct CountriesQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .lemon }

    public var country: String?

    public init(country: String? = nil) {
        self.country = country
    }

    public init(from decoder: any Decoder) throws {
        country = try PlaceQuery.code(RequestReader(decoder), "country")
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(query: country.map { ["country": [$0]] } ?? [:]).encode(to: encoder)
    }
}

/// `GET /api/v1/languages?language=xx`: one language as sent, or nil for all of them.
public struct LanguagesQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .lemon }

    public var language: String?

    public init(language: String? = nil) {
        self.language = language
    }

    public init(from decoder: any Decoder) throws {
        language = try PlaceQuery.code(RequestReader(decoder), "language")
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(query: language.map { ["language": [$0]] } ?? [:]).encode(to: encoder)
    }
}

/// `GET /api/v1/statistics/covid/google?countries=ZA&countries=GB`: the countries asked for, upper-case, each once, in
/// the order asked; none for the global totals.
public struct CovidQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .lemon }

    /// At most this many countries in one request.
    public static let maximumCountries = 50

    public var countries: [String]

    public init(countries: [String] = []) {
        self.countries = countries
    }

    public init(from decoder: any Decoder) throws {
        countries = []
        for value in try RequestReader(decoder).query("countries") where !value.isEmpty {
            guard Alpha2.isValid(value) else {
                throw RPCError.badRequest("Invalid alpha2 code '\(Alpha2.clip(value))'", reason: "invalid_alpha2")
            }
            let code = value.uppercased()
            if !countries.contains(code) { countries.append(code) }
        }
        guard countries.count <= Self.maximumCountries else {
            throw RPCError.badRequest("Ask for at most \(Self.maximumCountries) countries at once", reason: "too_many_countries")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(query: countries.isEmpty ? [:] : ["countries": countries]).encode(to: encoder)
    }
}

/// The one code a list is narrowed to (`?country=`, `?language=`), as sent; nil when absent or empty.
enum PlaceQuery {
    static func code(_ request: RequestReader, _ parameter: String) throws -> String? {
        let requested = try request.singleQuery(parameter).flatMap { $0.isEmpty ? nil : $0 }
        if let requested, !Alpha2.isValid(requested) {
            throw RPCError.badRequest("Invalid alpha2 code '\(Alpha2.clip(requested))'", reason: "invalid_alpha2")
        }
        return requested
    }
}
