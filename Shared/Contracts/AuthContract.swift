import CustodianRPC

/// The auth methods the gateway calls on its own (not for a route): who an admin token belongs to.
public enum AuthMethods {
    /// The principal of an admin token; 401 when it is no admin's.
    public static let adminAuthenticate = RPCMethod<TokenInput, Principal>("auth.admin.authenticate")
}

/// A bearer credential as the client sent it.
public struct TokenInput: Codable, Sendable {
    public var token: String

    public init(token: String) {
        self.token = token
    }
}
