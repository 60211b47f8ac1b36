import CustodianHTTP
import CustodianJSON
import CustodianRPC

/// The vault's methods: those `auth` calls (logins and passwords), with their inputs and results, and those the gateway routes.
public enum VaultMethods {
    /// A new user's key pair, sealed with the password (Argon2id).
    public static let usersInit = RPCMethod<VaultUserKeysInput, Empty>("vault.users.init")
    /// The user's key sealed again under a new password; 403 when the old one does not open it.
    public static let usersReseal = RPCMethod<VaultUserResealInput, Empty>("vault.users.reseal")
    /// Everything the vault holds of a user (keys, modules, repos, permissions, items): the vault's part of the user's
    /// erasure, which `auth` asks for; a receipt of the counts.
    public static let usersErase = RPCMethod<VaultDataErasure, ErasureReceipt>("vault.users.erase", retry: .safe)
    /// The module a uid and secret belong to (OAuth client credentials); 401 when none.
    public static let modulesCredentials = RPCMethod<ModuleCredentialsInput, ModuleCredentials>("vault.modules.credentials", retry: .safe)

    // The OwnYourData API (docs/rpc.md, "Typed routed methods"), read in FastAPI's words and answered in the API's.
    public static let modulesIndex = RoutedMethod<NoInput, [ModuleEntry]>("vault.modules.index", retry: .safe)
    public static let reposPubKey = RoutedMethod<RepoRequest, RepoPublicKey>("vault.repos.pubKey", retry: .safe)
    /// Raw: a batch answers 400 with the answer of each record, beside those written.
    public static let itemsWrite = RoutedMethod<ItemsWrite, RawHTTPReply>("vault.items.write")
    /// Raw: the records with `Total-Count` and `Link` headers.
    public static let itemsRead = RoutedMethod<ItemsRead, RawHTTPReply>("vault.items.read", retry: .safe)
    public static let itemsDelete = RoutedMethod<ItemDeletion, DeletedItem>("vault.items.delete", retry: .safe)
    public static let itemsDecrypted = RoutedMethod<ItemsDecryption, [DecryptedItem]>("vault.items.decrypted", retry: .safe)

    // The admin API.
    public static let adminCreateModule = RoutedMethod<CreateModuleRequest, CreatedModule>("vault.admin.createModule")
    public static let adminCreateRepo = RoutedMethod<CreateRepoRequest, RepoPublicKey>("vault.admin.createRepo")
    public static let adminGrant = RoutedMethod<GrantRequest, Grant>("vault.admin.grant")
    public static let adminUsers = RoutedMethod<VaultUsersQuery, VaultUsersPage>("vault.admin.users", retry: .safe)
    /// Raw: a PNG or SVG image, made by `links`.
    public static let adminModuleQR = RoutedMethod<ModuleQRRequest, RawHTTPReply>("vault.admin.moduleQR", retry: .safe)
}

/// `vault.users.init`: a new user's key pair, sealed with the password.
public struct VaultUserKeysInput: Codable, Sendable {
    public var userID: Int64
    public var password: String

    public init(userID: Int64, password: String) {
        self.userID = userID
        self.password = password
    }
}

/// `vault.users.reseal`: the user's key sealed again, under the new password.
public struct VaultUserResealInput: Codable, Sendable {
    public var userID: Int64
    public var oldPassword: String
    public var newPassword: String

    public init(userID: Int64, oldPassword: String, newPassword: String) {
        self.userID = userID
        self.oldPassword = oldPassword
        self.newPassword = newPassword
    }
}

/// `vault.modules.credentials`: the module a uid and secret belong to.
public struct ModuleCredentialsInput: Codable, Sendable {
    public var uid: String
    public var secret: String

    public init(uid: String, secret: String) {
        self.uid = uid
        self.secret = secret
    }
}

public struct ModuleCredentials: Codable, Sendable {
    public var moduleID: Int64
    public var userID: Int64

    public init(moduleID: Int64, userID: Int64) {
        self.moduleID = moduleID
        self.userID = userID
    }
}
