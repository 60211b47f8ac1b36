import CustodianHTTP
import CustodianRPC

/// `?include_synthetic=false|true|only` of the researchers' lists and exports: whether the records `custodian loadgen`
/// and `custodian bench` created (marked synthetic when made, docs/operations.md "Synthetic data") are left out (the
/// default, so that study data is never mixed with test data), shown too, or shown alone (for the clean-up).
public enum SyntheticFilter: String, Sendable, Equatable, CaseIterable {
    case exclude = "false"
    case include = "true"
    case only

    /// The parameter's one value; absent is ``exclude``, anything but the three words (or a repeat) a 400.
    public init(_ request: RequestReader) throws {
        guard let text = try request.singleQuery("include_synthetic") else {
            self = .exclude
            return
        }
        guard let filter = SyntheticFilter(rawValue: text) else {
            throw RPCError.badRequest("include_synthetic must be true, false or only", reason: "invalid_query")
        }
        self = filter
    }

    /// The `synthetic` value a row must have, nil for either: bound as `(\(wanted)::boolean IS NULL OR synthetic = \(wanted))`.
    public var wanted: Bool? {
        switch self {
        case .exclude: false
        case .include: nil
        case .only: true
        }
    }

    /// The query parameter as a typed input encodes it: absent for the default, so that a request without it reads the same.
    public var query: [String]? { self == .exclude ? nil : [rawValue] }
}

/// The input of a list that takes no parameter but `include_synthetic` (`GET /admin/v1/api-consumers`); any other
/// parameter is ignored, as it was before.
public struct SyntheticQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var synthetic: SyntheticFilter

    public init(synthetic: SyntheticFilter = .exclude) {
        self.synthetic = synthetic
    }

    public init(from decoder: any Decoder) throws {
        synthetic = try SyntheticFilter(RequestReader(decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        var query: [String: [String]] = [:]
        query["include_synthetic"] = synthetic.query
        try HTTPInput(query: query).encode(to: encoder)
    }
}
