import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation

/// `GET /admin/v1/statistics/covid?country=ZA&from=2020-05-01&to=2020-05-31&limit=100&after=CURSOR`: the imported
/// figures, newest day first (countries in alphabetical order within a day), a page at a time.
public struct CovidFiguresQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    /// Upper-case alpha2; nil: every country.
    public var country: String?
    /// `YYYY-MM-DD`, both included.
    public var from: String?
    public var to: String?
    public var limit: Int
    public var after: Cursor?

    /// The last row of the previous page: `<YYYY-MM-DD>.<alpha2>`, as `next_after` gives it.
    public struct Cursor: Sendable, Equatable {
        public var day: String
        public var country: String

        public init(day: String, country: String) {
            self.day = day
            self.country = country
        }

        init(_ text: String) throws {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, LemonDate.day(parts[0]) != nil, Alpha2.isValid(parts[1]), parts[1] == parts[1].uppercased() else {
                throw RPCError.badRequest("after must be a next_after value of an earlier page", reason: "invalid_query")
            }
            self.init(day: parts[0], country: parts[1])
        }

        public var text: String { "\(day).\(country)" }
    }

    public static let limits: ClosedRange<Int64> = 1...1000

    public init(country: String? = nil, from: String? = nil, to: String? = nil, limit: Int = 100, after: Cursor? = nil) {
        self.country = country
        self.from = from
        self.to = to
        self.limit = limit
        self.after = after
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        if let code = try request.singleQuery("country") {
            guard Alpha2.isValid(code) else {
                throw RPCError.badRequest("country '\(Alpha2.clip(code))' is not an alpha2 code (two letters)", reason: "invalid_alpha2")
            }
            country = code.uppercased()
        }
        func day(_ name: String) throws -> String? {
            guard let text = try request.singleQuery(name) else { return nil }
            guard LemonDate.day(text) != nil else {
                throw RPCError.badRequest("\(name) must be a day (YYYY-MM-DD), not '\(Alpha2.clip(text))'", reason: "invalid_query")
            }
            return text
        }
        from = try day("from")
        to = try day("to")
        // Days as `YYYY-MM-DD` sort as they follow each other.
        if let from, let to, from > to {
            throw RPCError.badRequest("from (\(from)) must not be after to (\(to))", reason: "invalid_query")
        }
        limit = Int(try request.integerQuery("limit", default: 100, in: Self.limits))
        after = try request.singleQuery("after").map(Cursor.init)
    }

    public func encode(to encoder: any Encoder) throws {
        var query = ["limit": [String(limit)]]
        query["country"] = country.map { [$0] }
        query["from"] = from.map { [$0] }
        query["to"] = to.map { [$0] }
        query["after"] = after.map { [$0.text] }
        try HTTPInput(query: query).encode(to: encoder)
    }
}

/// A page of imported figures, in the import's words (docs/admin.md, "POST /admin/v1/statistics/covid/imports").
public struct CovidFiguresPage: RoutedJSON, Equatable {
    public var figures: [Figure]
    /// Pass as `after` for the next (older) page; null on the last one.
    @ExplicitNull public var next_after: String?

    public struct Figure: Codable, Sendable, Equatable {
        public var country: String
        /// `YYYY-MM-DD`.
        public var date: String
        public var confirmed: Int64
        public var deaths: Int64
        /// Null where the source has no recovered count.
        @ExplicitNull public var recovered: Int64?
        public var source: String
        @ExplicitNull public var source_url: String?
        /// When this country's day was last imported (ISO 8601 UTC).
        public var imported_at: String

        public init(
            country: String, date: String, confirmed: Int64, deaths: Int64, recovered: Int64?, source: String, source_url: String?,
            imported_at: String
        ) {
            self.country = country
            self.date = date
            self.confirmed = confirmed
            self.deaths = deaths
            self.recovered = recovered
            self.source = source
            self.source_url = source_url
            self.imported_at = imported_at
        }
    }

    public init(figures: [Figure], next_after: String?) {
        self.figures = figures
        self.next_after = next_after
    }
}
