import Crypto
import Foundation
import LemonClient

/// What `custodian lemon call` keeps of the app instance it registered, so that later calls authenticate the same
/// instance instead of registering a new one each time: what a phone keeps in its Keychain or Keystore.
struct LemonIdentity: Codable {
    static let defaultPath = ".custodian/lemon-identity.json"

    var appId: String
    /// PKCS#8 PEM of the P-256 key the handshakes are signed with.
    var privateKey: String
    /// Where it was registered: an identity is known to that platform only, which an error then names.
    var server: String
    var registeredAt: String

    enum CodingKeys: String, CodingKey {
        case appId = "app_id", privateKey = "private_key", server, registeredAt = "registered_at"
    }

    init(app: LemonApp, server: String, registeredAt: Date = Date()) {
        self.appId = app.appId
        self.privateKey = app.privateKey.pemRepresentation
        self.server = server
        self.registeredAt = Date.ISO8601FormatStyle().format(registeredAt)
    }

    func app() throws -> LemonApp {
        LemonApp(appId: appId, privateKey: try P256.Signing.PrivateKey(pemRepresentation: privateKey))
    }

    /// The identity in `path`, or nil when there is no such file.
    static func load(_ path: String) throws -> LemonIdentity? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIError("cannot read the identity file \(path)") }
        do {
            let identity = try JSONDecoder().decode(LemonIdentity.self, from: data)
            _ = try identity.app()
            return identity
        } catch {
            throw CLIError("\(path) is not an identity `custodian lemon call` wrote (\(error)); move it away to register a new app instance")
        }
    }

    /// Only its owner may read it: it holds the key that proves the instance. A file that appeared meanwhile
    /// (another call registering at the same moment) is left alone.
    func save(to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty && !FileManager.default.fileExists(atPath: directory) {
            try Files.makeDirectory(directory)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            try Files.create(Array(try encoder.encode(self)) + [0x0A], at: path, mode: 0o600, exclusive: true)
        } catch {
            throw CLIError("cannot create the identity file \(path): \(error)")
        }
    }
}
