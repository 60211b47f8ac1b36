import CustodianHTTP
import CustodianJSON

/// A symptom as `GET /api/v1/symptoms` lists it: its key and its text in the language asked for.
public struct SymptomText: RoutedJSON, Equatable {
    public var key: String
    public var value: String

    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

/// A country or language as the app reads it.
public struct PlaceName: Codable, Sendable, Equatable {
    public var alpha2: String
    public var name: String

    public init(alpha2: String, name: String) {
        self.alpha2 = alpha2
        self.name = name
    }

    enum CodingKeys: String, CodingKey { case alpha2 = "Alpha2", name = "Name" }
}

/// `GET /api/v1/countries` and `…/languages`: every one as a list, or the one asked for as an object.
public enum PlaceNames: RoutedJSON, Equatable {
    case all([PlaceName])
    case one(PlaceName)

    public init(from decoder: any Decoder) throws {
        if let one = try? PlaceName(from: decoder) { self = .one(one) } else { self = .all(try [PlaceName](from: decoder)) }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .all(let places): try places.encode(to: encoder)
        case .one(let place): try place.encode(to: encoder)
        }
    }
}

/// A country's latest COVID-19 figures, or the sum of all of them, in the field names docs/lemon.md gives.
public struct CovidFigure: Codable, Sendable, Equatable {
    public var countryName: String
    public var contractedCount: Int64
    public var deathCount: Int64
    @ExplicitNull public var recoveredCount: Int64?
    public var source: String
    public var sourceCreatedAt: String
    @ExplicitNull public var sourceUrl: String?
    public var createdAt: String

    public init(
        countryName: String, contractedCount: Int64, deathCount: Int64, recoveredCount: Int64?, source: String, sourceCreatedAt: String,
        sourceUrl: String?, createdAt: String
    ) {
        self.countryName = countryName
        self.contractedCount = contractedCount
        self.deathCount = deathCount
        self.recoveredCount = recoveredCount
        self.source = source
        self.sourceCreatedAt = sourceCreatedAt
        self.sourceUrl = sourceUrl
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case countryName = "CountryName", contractedCount = "ContractedCount", deathCount = "DeathCount", recoveredCount = "RecoveredCount"
        case source = "Source", sourceCreatedAt = "SourceCreatedAt", sourceUrl = "SourceUrl", createdAt = "CreatedAt"
    }
}

/// `GET /api/v1/statistics/covid/google`: one country's figures (or the global ones) as an object, several as a list.
public enum CovidAnswer: RoutedJSON, Equatable {
    case one(CovidFigure)
    case several([CovidFigure])

    public init(from decoder: any Decoder) throws {
        if let one = try? CovidFigure(from: decoder) { self = .one(one) } else { self = .several(try [CovidFigure](from: decoder)) }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .one(let figure): try figure.encode(to: encoder)
        case .several(let figures): try figures.encode(to: encoder)
        }
    }
}
