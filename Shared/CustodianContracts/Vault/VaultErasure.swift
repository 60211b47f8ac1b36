import CustodianHTTP
import CustodianRPC

/// `DELETE /admin/v1/vault/users/{user_id}`: a data vault user's erasure (docs/erasure.md). A path that is not a number
/// names no user, so it erases nothing, as the vault's other admin routes treat it.
public struct VaultUserErasure: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var userID: Int64?

    public init(userID: Int64?) {
        self.userID = userID
    }

    public init(from decoder: any Decoder) throws {
        userID = try pathID(RequestReader(decoder), "user_id")
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(path: ["user_id": userID.map(String.init) ?? ""]).encode(to: encoder)
    }
}

/// `vault.users.erase`, which `auth` calls before it deletes the login: what the vault held of the user.
public struct VaultDataErasure: Codable, Sendable {
    public var userID: Int64

    public init(userID: Int64) {
        self.userID = userID
    }
}
