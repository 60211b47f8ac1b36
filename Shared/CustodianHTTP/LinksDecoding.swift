import CustodianJSON
import CustodianRPC

extension RequestDecoding {
    /// The links admin routes' words (docs/links.md): 400 `invalid_body`, naming the member as the client wrote it
    /// (`app_url is required`, `ttl_seconds must be an integer`), in ``describe(_:in:)``'s words.
    public static let links = RequestDecoding { error in
        RPCError.badRequest(describe(error.inBody), reason: "invalid_body")
    }
}

extension DecodingError {
    /// The error with its path from the body down (`app_url`, not `body.app_url`): what a client sent is the body.
    var inBody: DecodingError {
        func relative(_ context: Context) -> Context {
            guard context.codingPath.first?.stringValue == RequestKey.body.stringValue else { return context }
            return Context(
                codingPath: Array(context.codingPath.dropFirst()), debugDescription: context.debugDescription,
                underlyingError: context.underlyingError)
        }
        switch self {
        case .keyNotFound(let key, let context): return .keyNotFound(key, relative(context))
        case .typeMismatch(let type, let context): return .typeMismatch(type, relative(context))
        case .valueNotFound(let type, let context): return .valueNotFound(type, relative(context))
        case .dataCorrupted(let context): return .dataCorrupted(relative(context))
        @unknown default: return self
        }
    }
}
