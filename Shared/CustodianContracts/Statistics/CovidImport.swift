import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianWeb

/// `POST /admin/v1/statistics/covid/imports?source=…&source_url=…` with a CSV body (the gateway sends a text body as a
/// JSON string). The CSV's lines are checked by the service, against the countries it has.
public struct CovidImportRequest: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public static let defaultSource = "CSV import"

    /// Trimmed.
    public var source: String
    public var sourceURL: String?
    public var csv: String

    public init(source: String = Self.defaultSource, sourceURL: String? = nil, csv: String) {
        self.source = source
        self.sourceURL = sourceURL
        self.csv = csv
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        source = (try request.singleQuery("source") ?? Self.defaultSource).trimmingCharacters(in: .whitespaces)
        guard (1...100).contains(source.count), !ReferenceText.hasControlCharacters(source) else {
            throw RPCError.badRequest("source has 1 to 100 characters and no control characters", reason: "invalid_query")
        }
        sourceURL = try request.singleQuery("source_url").flatMap { $0.isEmpty ? nil : $0 }
        if let sourceURL, !WebURL.isWeb(sourceURL, maximumLength: 2000) {
            throw RPCError.badRequest("source_url must be an http or https URL of at most 2000 characters", reason: "invalid_query")
        }
        guard let csv = try request.body(JSONValue.self).stringValue else {
            throw RPCError.badRequest("the body must be the CSV text (Content-Type: text/csv)", reason: "invalid_csv")
        }
        self.csv = csv
    }

    public func encode(to encoder: any Encoder) throws {
        var query = ["source": [source]]
        query["source_url"] = sourceURL.map { [$0] }
        try HTTPInput(body: .string(csv), query: query).encode(to: encoder)
    }
}

/// What an import stored.
public struct CovidImportResult: RoutedJSON, Equatable {
    public var rows: Int
    public var inserted: Int
    public var updated: Int
    public var countries: [String]
    public var first_day: String
    public var last_day: String
    public var source: String
    @ExplicitNull public var source_url: String?

    public init(
        rows: Int, inserted: Int, updated: Int, countries: [String], first_day: String, last_day: String, source: String, source_url: String?
    ) {
        self.rows = rows
        self.inserted = inserted
        self.updated = updated
        self.countries = countries
        self.first_day = first_day
        self.last_day = last_day
        self.source = source
        self.source_url = source_url
    }
}
