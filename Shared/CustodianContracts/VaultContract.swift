import CustodianHTTP
import CustodianJSON
import CustodianRPC

/// The vault's methods: those `auth` calls (logins and passwords), with their inputs and results, and those the gateway routes.
public enum VaultMethods {
    /// A new user's key pair, sealed with the password (Argon2id).
    public static let usersInit = RPCMethod<VaultUserKeysInput, Empty>("vault.users.init")
    /// The user's key sealed again under a new password; 403 when the old one does not open it.
    public static let usersReseal = RPCMethod<VaultUserResealInput, Empty>("vault.users.reseal")
    /// The module a uid and secret belong to (OAuth client credentials); 401 when none.
    public static let modulesCredentials = RPCMethod<ModuleCredentialsInput, ModuleCredentials>("vault.modules.credentials", retry: .safe)

    // The methods the gateway routes HTTP requests to (RouteTable): input an HTTPInput, result the API's JSON
    // (rendered by the gateway in the route's style), a RawHTTPReply, or a StreamPage.
    public static let adminCreateModule = RPCMethod<HTTPInput, JSONValue>("vault.admin.createModule")
    public static let adminCreateRepo = RPCMethod<HTTPInput, JSONValue>("vault.admin.createRepo")
    public static let adminGrant = RPCMethod<HTTPInput, JSONValue>("vault.admin.grant")
    public static let adminUsers = RPCMethod<HTTPInput, JSONValue>("vault.admin.users", retry: .safe)
    public static let adminModuleQR = RPCMethod<HTTPInput, RawHTTPReply>("vault.admin.moduleQR", retry: .safe)
    public static let itemsDecrypted = RPCMethod<HTTPInput, JSONValue>("vault.items.decrypted", retry: .safe)
    public static let itemsRead = RPCMethod<HTTPInput, RawHTTPReply>("vault.items.read", retry: .safe)
    public static let itemsWrite = RPCMethod<HTTPInput, RawHTTPReply>("vault.items.write")
    public static let modulesIndex = RPCMethod<HTTPInput, JSONValue>("vault.modules.index", retry: .safe)
    public static let reposPubKey = RPCMethod<HTTPInput, JSONValue>("vault.repos.pubKey", retry: .safe)
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
