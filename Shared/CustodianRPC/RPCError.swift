import CustodianJSON
/// An error a method returns to its caller. Application codes equal the HTTP status they stand for, so
/// the gateway renders them without a lookup table; the JSON-RPC protocol codes stay in their reserved range.
public struct RPCError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Code
    public var reason: String
    public var message: String
    public var details: JSONValue?
    /// Seconds after which a retry may succeed, for refusals that end by themselves (429, 503).
    public var retryAfter: Int?

    public init(_ code: Code, reason: String, message: String, details: JSONValue? = nil, retryAfter: Int? = nil) {
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details
        self.retryAfter = retryAfter
    }

    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        // JSON-RPC 2.0 protocol errors.
        public static let parseError = Code(rawValue: -32700)
        public static let invalidRequest = Code(rawValue: -32600)
        public static let methodNotFound = Code(rawValue: -32601)
        public static let invalidParams = Code(rawValue: -32602)
        public static let internalError = Code(rawValue: -32603)

        // Application errors, one per HTTP status.
        public static let badRequest = Code(rawValue: 400)
        public static let unauthenticated = Code(rawValue: 401)
        public static let forbidden = Code(rawValue: 403)
        public static let notFound = Code(rawValue: 404)
        public static let conflict = Code(rawValue: 409)
        public static let payloadTooLarge = Code(rawValue: 413)
        public static let unprocessable = Code(rawValue: 422)
        public static let locked = Code(rawValue: 423)
        public static let tooManyRequests = Code(rawValue: 429)
        public static let unavailable = Code(rawValue: 503)
        public static let deadlineExceeded = Code(rawValue: 504)

        /// The HTTP status a gateway answers with for this code.
        public var httpStatus: Int {
            switch self {
            case .parseError, .invalidRequest, .invalidParams: 400
            case .methodNotFound: 501
            case _ where (400..<600).contains(rawValue): rawValue
            default: 500
            }
        }

        public var description: String { String(rawValue) }
    }

    public var description: String { "RPCError(\(code), \(reason): \(message))" }

    init(_ object: RPCErrorObject) {
        self.code = Code(rawValue: object.code)
        self.reason = object.data?.reason ?? "rpc_error"
        self.message = object.message
        self.details = object.data?.details
        self.retryAfter = object.data?.retryAfter
    }

    var object: RPCErrorObject {
        RPCErrorObject(code: code.rawValue, message: message, data: RPCErrorData(reason: reason, details: details, retryAfter: retryAfter))
    }
}

extension RPCError {
    public static func badRequest(_ message: String, reason: String = "bad_request", details: JSONValue? = nil) -> RPCError {
        RPCError(.badRequest, reason: reason, message: message, details: details)
    }
    public static func unauthenticated(_ message: String, reason: String = "unauthenticated") -> RPCError {
        RPCError(.unauthenticated, reason: reason, message: message)
    }
    public static func forbidden(_ message: String, reason: String = "forbidden") -> RPCError {
        RPCError(.forbidden, reason: reason, message: message)
    }
    public static func notFound(_ message: String, reason: String = "not_found") -> RPCError {
        RPCError(.notFound, reason: reason, message: message)
    }
    public static func unprocessable(_ message: String, reason: String = "validation_failed", details: JSONValue? = nil) -> RPCError {
        RPCError(.unprocessable, reason: reason, message: message, details: details)
    }
    public static func unavailable(_ message: String, reason: String = "unavailable", retryAfter: Int? = nil) -> RPCError {
        RPCError(.unavailable, reason: reason, message: message, retryAfter: retryAfter)
    }
    public static func tooManyRequests(_ message: String, reason: String = "too_many_requests", retryAfter: Int) -> RPCError {
        RPCError(.tooManyRequests, reason: reason, message: message, retryAfter: retryAfter)
    }
    public static func `internal`(_ message: String = "internal error") -> RPCError {
        RPCError(.internalError, reason: "internal_error", message: message)
    }
}
