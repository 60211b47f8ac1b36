/// A request among the slowest of a run, with what finds it in the platform's traces and logs.
public struct SlowRequest: Sendable, Equatable {
    /// `<scenario>/<kind>`: `vault/sealed-batch`.
    public var operation: String
    public var milliseconds: Double
    /// Nil when there was no answer.
    public var status: Int?
    public var trace: AnswerTrace?

    public init(operation: String, milliseconds: Double, status: Int?, trace: AnswerTrace?) {
        self.operation = operation
        self.milliseconds = milliseconds
        self.status = status
        self.trace = trace
    }
}

/// The `capacity` slowest requests so far, slowest first: a sorted array that never holds more than that, so that a
/// long run keeps ten requests and not every one. A request no slower than the fastest kept costs one comparison.
struct SlowestRequests: Sendable {
    let capacity: Int
    private(set) var requests: [SlowRequest] = []

    init(capacity: Int = 10) {
        self.capacity = capacity
    }

    /// Whether a request this slow would be kept: asked first, so that only those are given their trace.
    func admits(_ milliseconds: Double) -> Bool {
        guard capacity > 0 else { return false }
        return requests.count < capacity || milliseconds > requests[requests.count - 1].milliseconds
    }

    mutating func add(_ request: SlowRequest) {
        guard admits(request.milliseconds) else { return }
        // After those as slow, so that of equal latencies the first seen stays.
        let index = requests.firstIndex { $0.milliseconds < request.milliseconds } ?? requests.endIndex
        requests.insert(request, at: index)
        if requests.count > capacity { requests.removeLast() }
    }
}

/// In the JSON report: `{operation, ms, status, trace_id, sampled, request_id}`, with null for what is missing (a
/// request without an answer, an answer without a `traceparent`), so that every entry has every key.
extension SlowRequest: Codable {
    enum CodingKeys: String, CodingKey {
        case operation, ms, status, sampled
        case traceID = "trace_id"
        case requestID = "request_id"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        operation = try container.decode(String.self, forKey: .operation)
        milliseconds = try container.decode(Double.self, forKey: .ms)
        status = try container.decodeIfPresent(Int.self, forKey: .status)
        let traceID = try container.decodeIfPresent(String.self, forKey: .traceID)
        let sampled = try container.decodeIfPresent(Bool.self, forKey: .sampled)
        let requestID = try container.decodeIfPresent(String.self, forKey: .requestID)
        trace = traceID == nil && requestID == nil ? nil : AnswerTrace(traceID: traceID, sampled: sampled, requestID: requestID)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(operation, forKey: .operation)
        try container.encode(milliseconds, forKey: .ms)
        try container.encode(status, forKey: .status)
        try container.encode(trace?.traceID, forKey: .traceID)
        try container.encode(trace?.sampled, forKey: .sampled)
        try container.encode(trace?.requestID, forKey: .requestID)
    }
}
