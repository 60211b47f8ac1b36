import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation

/// `POST /admin/v1/vault/users`: a vault user, whose key pair the vault seals with the password.
public struct VaultUserCreate: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    /// Trimmed, lower-case.
    public var email: String
    public var name: String
    public var password: String

    public init(email: String, name: String, password: String) {
        self.email = email
        self.name = name
        self.password = password
    }

    enum CodingKeys: String, CodingKey { case email, name, password }

    public init(from decoder: any Decoder) throws {
        let body = try RequestReader(decoder).body(keyedBy: CodingKeys.self)
        let email = try body.decode(String.self, forKey: .email)
        name = try body.decode(String.self, forKey: .name)
        password = try body.decode(String.self, forKey: .password)
        self.email = Self.normalised(email)
        guard self.email.count <= 254, self.email.range(of: #"^[^@\s]+@[^@\s]+\.[^@\s]+\z"#, options: .regularExpression) != nil else {
            throw RPCError.validation(location: ["body", "email"], message: "email must be an email address")
        }
        guard (1...200).contains(name.count) else {
            throw RPCError.validation(location: ["body", "name"], message: "name must have 1 to 200 characters")
        }
        try Self.checkPassword(password, at: "password")
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(body: ["email": .string(email), "name": .string(name), "password": .string(password)]).encode(to: encoder)
    }

    /// How logins are looked up: one user per address, whatever its case.
    public static func normalised(_ email: String) -> String { email.trimmingCharacters(in: .whitespaces).lowercased() }

    static func checkPassword(_ password: String, at member: String) throws {
        guard (6...1024).contains(password.count) else {
            throw RPCError.validation(location: ["body", member], message: "password must have 6 to 1024 characters")
        }
    }
}

/// A vault user as created.
public struct VaultUser: RoutedJSON, Equatable {
    public var id: Int64
    public var email: String
    public var name: String

    public init(id: Int64, email: String, name: String) {
        self.id = id
        self.email = email
        self.name = name
    }
}

/// `POST /api/password`: the user's current password and the new one.
public struct PasswordChange: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var current_password: String
    public var new_password: String

    public init(current_password: String, new_password: String) {
        self.current_password = current_password
        self.new_password = new_password
    }

    enum CodingKeys: String, CodingKey { case current_password, new_password }

    public init(from decoder: any Decoder) throws {
        let body = try RequestReader(decoder).body(keyedBy: CodingKeys.self)
        current_password = try body.decode(String.self, forKey: .current_password)
        new_password = try body.decode(String.self, forKey: .new_password)
        try VaultUserCreate.checkPassword(new_password, at: "new_password")
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(body: ["current_password": .string(current_password), "new_password": .string(new_password)]).encode(to: encoder)
    }
}

/// What a password change answers: `{"status": "ok"}`.
public struct PasswordChanged: RoutedJSON, Equatable {
    public var status = "ok"

    public init() {}
}
