import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation

/// `?from=…&to=…` of the researchers' submission routes: submission times, `to` exclusive, each a day (2020-05-17) or
/// an ISO 8601 time.
public struct SubmissionRange: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var from: Date?
    public var to: Date?
    /// Whether the submissions of synthetic app instances (``SyntheticFilter``) count.
    public var synthetic: SyntheticFilter

    public init(from: Date? = nil, to: Date? = nil, synthetic: SyntheticFilter = .exclude) {
        self.from = from
        self.to = to
        self.synthetic = synthetic
    }

    public init(from decoder: any Decoder) throws {
        try self.init(RequestReader(decoder))
    }

    init(_ request: RequestReader) throws {
        func bound(_ name: String) throws -> Date? {
            guard let text = try request.singleQuery(name) else { return nil }
            guard let date = LemonDate.parse(ResearcherExport.timeBound(text)) else {
                throw RPCError.badRequest("\(name) must be a day (2020-05-17) or an ISO 8601 time", reason: "invalid_query")
            }
            return date
        }
        from = try bound("from")
        to = try bound("to")
        synthetic = try SyntheticFilter(request)
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(query: query).encode(to: encoder)
    }

    var query: [String: [String]] {
        var query: [String: [String]] = [:]
        query["from"] = from.map { [LemonDate.format($0)] }
        query["to"] = to.map { [LemonDate.format($0)] }
        query["include_synthetic"] = synthetic.query
        return query
    }
}

/// `GET /admin/v1/statistics/submissions?format=csv|ndjson[&from=&to=]`, a page per call (``StreamPage``).
public struct SubmissionExportQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var format: ResearcherExport.Format
    public var range: SubmissionRange
    /// The last submission id of the previous page; nil for the first page.
    public var after: Int64?

    public init(format: ResearcherExport.Format = .csv, range: SubmissionRange = SubmissionRange(), after: Int64? = nil) {
        self.format = format
        self.range = range
        self.after = after
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        format = try ResearcherExport.format(request.singleQuery("format"))
        range = try SubmissionRange(request)
        after = try request.cursor.map { text in
            guard let id = Int64(text) else { throw RPCError.badRequest("invalid export cursor", reason: "invalid_cursor") }
            return id
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var query = range.query
        query["format"] = [format.rawValue]
        try HTTPInput(query: query, cursor: after.map(String.init)).encode(to: encoder)
    }
}

/// `GET /admin/v1/statistics/submissions/counts`: submissions by status, country and ISO week.
public struct SubmissionCounts: RoutedJSON, Equatable {
    public var counts: [Count]

    public struct Count: Codable, Sendable, Equatable {
        @ExplicitNull public var status: String?
        @ExplicitNull public var country: String?
        /// ISO week of the submission, `2026-W47`.
        public var week: String
        public var count: Int

        public init(status: String?, country: String?, week: String, count: Int) {
            self.status = status
            self.country = country
            self.week = week
            self.count = count
        }
    }

    public init(counts: [Count]) {
        self.counts = counts
    }
}
