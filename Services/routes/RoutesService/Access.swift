import CustodianRPC

/// The principals the gateway establishes for routes' methods (declared `requires: [.consumer]` where registered).
enum Access {
    /// The route store's methods: only for signed requests.
    static let consumer = PrincipalRequirement.only(
        .consumer, refusing: .unauthenticated("This route needs a signed request (X-API-Key, X-API-Timestamp, X-API-Sig)"))

    /// The id of the API consumer that signed the request.
    static func consumerID(_ context: CallContext) throws -> Int64 {
        guard let principal = context.principal, let id = Int64(principal.id) else {
            throw RPCError.unauthenticated("This route needs a signed request (X-API-Key, X-API-Timestamp, X-API-Sig)")
        }
        return id
    }
}
