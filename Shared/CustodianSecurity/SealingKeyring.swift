import Crypto
import Foundation

/// The deployment's sealing keys, each under a version (docs/operations.md, "Rotating the sealing key"): new values
/// are sealed with the newest, and a value opens with the version it names, so that a key can be replaced without
/// losing what was sealed before, and retired once nothing is sealed under it any more.
///
/// As text (`CUSTODIAN_SEALING_KEY`, the file `sealing-key`): entries separated by white space or new lines, each
/// `VERSION:KEY` with the key as 32 bytes of base64; a bare key is version 1, so a file made before versions holds
/// version 1 unchanged.
public struct SealingKeyring: Sendable {
    /// Every key by its version.
    private let keys: [UInt32: SymmetricKey]
    /// The version new values are sealed under: the highest.
    public let newest: UInt32

    public init(_ keys: [UInt32: SymmetricKey]) throws {
        guard let newest = keys.keys.max() else { throw SealingKeyringError.empty }
        guard !keys.keys.contains(0) else { throw SealingKeyringError.badVersion(entry: 1) }
        self.keys = keys
        self.newest = newest
    }

    /// Reads the keyring's text; the errors name the entry that is wrong, never a key.
    public init(text: String) throws {
        var keys: [UInt32: SymmetricKey] = [:]
        for (index, entry) in text.split(whereSeparator: { $0.isWhitespace }).enumerated() {
            let number = index + 1
            let version: UInt32
            let encoded: Substring
            if let colon = entry.firstIndex(of: ":") {
                guard let parsed = UInt32(entry[..<colon]), parsed > 0 else { throw SealingKeyringError.badVersion(entry: number) }
                version = parsed
                encoded = entry[entry.index(after: colon)...]
            } else {
                version = 1
                encoded = entry
            }
            guard let data = Data(base64Encoded: String(encoded)), data.count == 32 else {
                throw SealingKeyringError.badKey(entry: number, version: version)
            }
            guard keys[version] == nil else { throw SealingKeyringError.duplicateVersion(version) }
            keys[version] = SymmetricKey(data: data)
        }
        try self.init(keys)
    }

    /// The versions held, oldest first.
    public var versions: [UInt32] { keys.keys.sorted() }

    public func key(_ version: UInt32) -> SymmetricKey? { keys[version] }

    /// This keyring with a new random key, one version above the newest: the version new values are sealed under
    /// once every reader runs with it.
    public func adding() -> SealingKeyring {
        var keys = self.keys
        keys[newest + 1] = SymmetricKey(size: .bits256)
        return SealingKeyring(checked: keys, newest: newest + 1)
    }

    /// This keyring without `version`, which must be held and must not be the newest.
    public func retiring(_ version: UInt32) throws -> SealingKeyring {
        guard keys[version] != nil else { throw SealingKeyringError.unknownVersion(version, held: versions) }
        guard version != newest else { throw SealingKeyringError.retiringNewest(version) }
        var keys = self.keys
        keys[version] = nil
        return SealingKeyring(checked: keys, newest: newest)
    }

    private init(checked keys: [UInt32: SymmetricKey], newest: UInt32) {
        self.keys = keys
        self.newest = newest
    }

    /// The keyring as its file holds it: a `VERSION:KEY` line per key, oldest first.
    public var text: String {
        versions.map { version in
            "\(version):" + keys[version]!.withUnsafeBytes { Data($0) }.base64EncodedString() + "\n"
        }.joined()
    }

    /// A new deployment's key file: one bare key, which is version 1 (and which releases before key versions read).
    public static func generateText() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64EncodedString()
    }
}

public enum SealingKeyringError: Error, Equatable, CustomStringConvertible {
    case empty
    case badVersion(entry: Int)
    case badKey(entry: Int, version: UInt32)
    case duplicateVersion(UInt32)
    case unknownVersion(UInt32, held: [UInt32])
    case retiringNewest(UInt32)

    public var description: String {
        switch self {
        case .empty:
            "it holds no key"
        case .badVersion(let entry):
            "entry \(entry): the version before ':' must be a whole number from 1 to \(UInt32.max)"
        case .badKey(let entry, let version):
            "entry \(entry) (version \(version)): a key is 32 bytes, base64-encoded"
        case .duplicateVersion(let version):
            "version \(version) appears twice"
        case .unknownVersion(let version, let held):
            "there is no key version \(version) (the keys held are version \(held.map(String.init).joined(separator: ", ")))"
        case .retiringNewest(let version):
            "version \(version) is the newest key, which new values are sealed with: add a newer one first"
        }
    }
}
