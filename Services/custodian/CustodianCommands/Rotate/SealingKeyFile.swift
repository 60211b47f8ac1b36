import CustodianSecurity
import Foundation

/// The deployment's sealing key file (`<data-dir>/secrets/sealing-key` of `custodian up`, `<secrets-dir>/sealing-key`
/// of `custodian setup`) as the command line reads and changes it.
enum SealingKeyFile {
    static func read(_ path: String) throws -> SealingKeyring {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw CLIError("cannot read the sealing key file \(path)") }
        return try parse(text, source: path)
    }

    /// The keyring `text` holds; `source` names it in the error when it is damaged.
    static func parse(_ text: String, source: String) throws -> SealingKeyring {
        do {
            return try SealingKeyring(text: text)
        } catch {
            throw CLIError("the sealing key file \(source) is damaged: \(error); nothing was changed")
        }
    }

    /// Replaces the file in one step with `keyring`: a new file (mode 0600, on disk) renamed over the old one, so that a
    /// service starting meanwhile reads the old keys or the new ones, and a crash cannot leave a key that sealed values
    /// only in memory.
    static func write(_ keyring: SealingKeyring, to path: String) throws {
        let temporary = path + ".new"
        unlink(temporary)
        do {
            try Files.create(Array(keyring.text.utf8), at: temporary, mode: 0o600, exclusive: true, durable: true)
        } catch {
            throw CLIError("cannot write \(temporary): \(error)")
        }
        guard rename(temporary, path) == 0 else { throw CLIError("cannot replace \(path): \(String(cString: strerror(errno)))") }
        let directory = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}
