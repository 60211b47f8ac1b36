import CustodianRPC

/// The principals the gateway establishes for routes' methods; a call without the right one comes from a
/// misconfigured route, never from a client.
enum Access {
    /// The id of the API consumer that signed the request.
    static func requireConsumer(_ context: CallContext) throws -> Int64 {
        guard let principal = context.principal, principal.kind == .consumer, let id = Int64(principal.id) else {
            throw RPCError.unauthenticated("This route needs a signed request (X-API-Key, X-API-Timestamp, X-API-Sig)")
        }
        return id
    }
}
