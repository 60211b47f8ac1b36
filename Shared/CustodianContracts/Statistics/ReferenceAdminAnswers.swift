import CustodianHTTP

/// A country or language as admins see it, inactive ones too.
public struct Place: RoutedJSON, Equatable {
    public var alpha2: String
    public var name: String
    public var active: Bool

    public init(alpha2: String, name: String, active: Bool) {
        self.alpha2 = alpha2
        self.name = name
        self.active = active
    }
}

/// `GET /admin/v1/statistics/countries`.
public struct CountryList: RoutedJSON, Equatable {
    public var countries: [Place]

    public init(countries: [Place]) {
        self.countries = countries
    }
}

/// `GET /admin/v1/statistics/languages`.
public struct LanguageList: RoutedJSON, Equatable {
    public var languages: [Place]

    public init(languages: [Place]) {
        self.languages = languages
    }
}

/// A symptom with every translation it has.
public struct Symptom: RoutedJSON, Equatable {
    public var key: String
    public var position: Int
    public var active: Bool
    public var translations: [String: String]

    public init(key: String, position: Int, active: Bool, translations: [String: String]) {
        self.key = key
        self.position = position
        self.active = active
        self.translations = translations
    }
}

/// `GET /admin/v1/statistics/symptoms`.
public struct SymptomList: RoutedJSON, Equatable {
    public var symptoms: [Symptom]

    public init(symptoms: [Symptom]) {
        self.symptoms = symptoms
    }
}
