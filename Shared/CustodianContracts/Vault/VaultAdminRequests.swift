import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianWeb

/// A vault user or module the admin API's path names (`{user_id}`, `{module_id}`): nil when it is not a number, which
/// the vault answers as one that does not exist.
func pathID(_ request: RequestReader, _ name: String) throws -> Int64? {
    Int64(try request.path(name))
}

/// `POST /admin/v1/vault/users/{user_id}/modules {"name","description"?,"url","picture"?}`: installs a module. The body
/// is checked once the user is found.
public struct CreateModuleRequest: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var userID: Int64?
    public var module: Deferred<ModuleDefinition>

    public init(userID: Int64, module: ModuleDefinition) {
        self.userID = userID
        self.module = Deferred(module)
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        userID = try pathID(request, "user_id")
        module = try Deferred(Self.decoding) { try ModuleDefinition(request.body(keyedBy: ModuleDefinition.CodingKeys.self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        let body = try module.value.map { try JSONValueEncoder().encode($0) } ?? .null
        try HTTPInput(body: body, path: ["user_id": userID.map(String.init) ?? ""]).encode(to: encoder)
    }
}

/// A module as an admin installs it, checked as the admin API always did.
public struct ModuleDefinition: Codable, Sendable, Equatable {
    public var name: String
    public var description: String?
    public var url: String
    /// A `data:image/…` URL.
    public var picture: String?

    public init(name: String, description: String? = nil, url: String, picture: String? = nil) {
        self.name = name
        self.description = description
        self.url = url
        self.picture = picture
    }

    enum CodingKeys: String, CodingKey { case name, description, url, picture }

    /// Every member first, then the checks.
    init(_ body: KeyedDecodingContainer<CodingKeys>) throws {
        self.init(
            name: try body.decode(String.self, forKey: .name), description: try body.decodeIfPresent(String.self, forKey: .description),
            url: try body.decode(String.self, forKey: .url), picture: try body.decodeIfPresent(String.self, forKey: .picture))
        guard (1...200).contains(name.count) else {
            throw RPCError.validation(location: ["body", "name"], message: "name must have 1 to 200 characters")
        }
        guard WebURL.isWeb(url) else {
            throw RPCError.validation(location: ["body", "url"], message: "url must be an http(s) URL")
        }
        if let picture, !picture.hasPrefix("data:image/") || picture.count > 512 * 1024 {
            throw RPCError.validation(location: ["body", "picture"], message: "picture must be a data:image/… URL of at most 512 KiB")
        }
    }
}

/// A module just installed, with its secret: shown this once.
public struct CreatedModule: RoutedJSON, Equatable {
    public var id: Int64
    public var name: String
    public var uid: String
    public var secret: String

    public init(id: Int64, name: String, uid: String, secret: String) {
        self.id = id
        self.name = name
        self.uid = uid
        self.secret = secret
    }
}

/// `POST /admin/v1/vault/users/{user_id}/repos {"identifier"}`. The body is read once the user is found; the identifier
/// is the vault's to check.
public struct CreateRepoRequest: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var userID: Int64?
    public var identifier: Deferred<String>

    public init(userID: Int64, identifier: String) {
        self.userID = userID
        self.identifier = Deferred(identifier)
    }

    enum CodingKeys: String, CodingKey { case identifier }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        userID = try pathID(request, "user_id")
        identifier = try Deferred(Self.decoding) { try request.body(keyedBy: CodingKeys.self).decode(String.self, forKey: .identifier) }
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(body: identifier.value.map { ["identifier": .string($0)] } ?? .null, path: ["user_id": userID.map(String.init) ?? ""])
            .encode(to: encoder)
    }
}

/// `POST /admin/v1/vault/modules/{module_id}/permissions {"repo","read","write"}`: what a module may do with a repo.
public struct GrantRequest: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var moduleID: Int64?
    /// The repo's identifier, as given: the vault checks it before it looks for the module.
    public var repo: String
    public var read: Bool
    public var write: Bool

    public init(moduleID: Int64, repo: String, read: Bool, write: Bool) {
        self.moduleID = moduleID
        self.repo = repo
        self.read = read
        self.write = write
    }

    enum CodingKeys: String, CodingKey { case repo, read, write }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        let body = try request.body(keyedBy: CodingKeys.self)
        repo = try body.decode(String.self, forKey: .repo)
        read = try body.decode(Bool.self, forKey: .read)
        write = try body.decode(Bool.self, forKey: .write)
        moduleID = try pathID(request, "module_id")
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(
            body: ["repo": .string(repo), "read": .bool(read), "write": .bool(write)], path: ["module_id": moduleID.map(String.init) ?? ""]
        )
        .encode(to: encoder)
    }
}

/// A module's permission on a repo, as stored.
public struct Grant: RoutedJSON, Equatable {
    public var module_id: Int64
    public var repo: String
    public var read: Bool
    public var write: Bool

    public init(module_id: Int64, repo: String, read: Bool, write: Bool) {
        self.module_id = module_id
        self.repo = repo
        self.read = read
        self.write = write
    }
}

/// `GET /admin/v1/vault/modules/{module_id}/qr?format=png|svg`: a module's login QR code. The format is checked once the
/// module is found.
public struct ModuleQRRequest: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var moduleID: Int64?
    public var format: Deferred<QRRenderInput.Format>

    public init(moduleID: Int64, format: QRRenderInput.Format = .png) {
        self.moduleID = moduleID
        self.format = Deferred(format)
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        moduleID = try pathID(request, "module_id")
        // A repeated parameter's first value counts.
        let name = try request.firstQuery("format") ?? "png"
        format = try Deferred(Self.decoding) {
            guard let format = QRRenderInput.Format(rawValue: name) else {
                throw RPCError.badRequest("format must be png or svg", reason: "invalid_format")
            }
            return format
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(path: ["module_id": moduleID.map(String.init) ?? ""], query: format.value.map { ["format": [$0.rawValue]] } ?? [:])
            .encode(to: encoder)
    }
}

/// `GET /admin/v1/vault/users?after=ID&limit=100`.
public struct VaultUsersQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var after: Int64
    public var limit: Int64
    public var synthetic: SyntheticFilter

    public init(after: Int64 = 0, limit: Int64 = 100, synthetic: SyntheticFilter = .exclude) {
        self.after = after
        self.limit = limit
        self.synthetic = synthetic
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        after = try request.integerQuery("after", default: 0, in: 0...Int64.max)
        limit = try request.integerQuery("limit", default: 100, in: 1...1000)
        synthetic = try SyntheticFilter(request)
    }

    public func encode(to encoder: any Encoder) throws {
        var query = ["after": [String(after)], "limit": [String(limit)]]
        query["include_synthetic"] = synthetic.query
        try HTTPInput(query: query).encode(to: encoder)
    }
}

/// What an operator sees of the vault's users: by number, their modules with what each may do, and their repos with
/// how many items they hold. No email, name, key or item: those are the users' own.
public struct VaultUsersPage: RoutedJSON, Equatable {
    public var users: [User]
    /// Pass as `after` for the next page; null on the last one.
    @ExplicitNull public var next_after: Int64?

    public init(users: [User], next_after: Int64?) {
        self.users = users
        self.next_after = next_after
    }

    public struct User: Codable, Sendable, Equatable {
        public var id: Int64
        public var modules: [Module]
        public var repos: [Repo]

        public init(id: Int64, modules: [Module] = [], repos: [Repo] = []) {
            self.id = id
            self.modules = modules
            self.repos = repos
        }
    }

    public struct Module: Codable, Sendable, Equatable {
        public var id: Int64
        public var name: String
        public var url: String
        public var permissions: [Permission]

        public init(id: Int64, name: String, url: String, permissions: [Permission] = []) {
            self.id = id
            self.name = name
            self.url = url
            self.permissions = permissions
        }
    }

    public struct Permission: Codable, Sendable, Equatable {
        public var repo: String
        public var read: Bool
        public var write: Bool

        public init(repo: String, read: Bool, write: Bool) {
            self.repo = repo
            self.read = read
            self.write = write
        }
    }

    public struct Repo: Codable, Sendable, Equatable {
        public var id: Int64
        public var identifier: String
        public var items: Int64

        public init(id: Int64, identifier: String, items: Int64) {
            self.id = id
            self.identifier = identifier
            self.items = items
        }
    }
}
