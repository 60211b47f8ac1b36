import CustodianRPC

/// The admin API's rules for query parameters, with its messages: the same for an ``HTTPInput`` and a typed input.
public enum QueryParameter {
    /// The one value of `values` (those of query parameter `name`): nil when absent, a 400 when given twice, since
    /// picking one of two values silently hides a client's mistake.
    public static func single(_ values: [String]?, name: String) throws -> String? {
        guard let values else { return nil }
        guard values.count == 1 else {
            throw RPCError.badRequest("Give the query parameter '\(name)' once, not \(values.count) times", reason: "repeated_parameter")
        }
        return values[0]
    }

    /// `text` as a whole number within `range`, `defaultValue` when absent; else a 400 that gives the range.
    public static func integer<Number: FixedWidthInteger>(
        _ text: String?, name: String, default defaultValue: Number,
        in range: ClosedRange<Number>
    ) throws -> Number {
        guard let text else { return defaultValue }
        guard let value = Number(text), range.contains(value) else {
            throw RPCError.badRequest("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)", reason: "invalid_query")
        }
        return value
    }
}
