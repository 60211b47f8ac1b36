import Foundation

/// The files a platform cannot run its data without, as a backup takes them and a restore puts them back.
struct SecretFiles {
    enum Root: String, Codable {
        /// A `custodian up` data directory: `secrets/` (the sealing key, database passwords, LEMON keys), the admin
        /// token, the TLS pair, and the marker that the demo data was loaded (so that a restore does not load it again).
        case dataDirectory = "data-dir"
        /// A `custodian setup` secrets folder (compose, Kubernetes): all of it.
        case secretsDirectory = "secrets-dir"
    }

    static let dataDirectoryFiles = ["admin-token", "tls/cert.pem", "tls/key.pem", "demo-loaded"]
    /// The one file without which no sealed value opens: a backup without it is refused.
    static let sealingKey = "secrets/sealing-key"

    let root: Root
    let folder: String

    init(dataDirectory: String, secretsDirectory: String?) {
        if let secretsDirectory {
            root = .secretsDirectory
            folder = secretsDirectory
        } else {
            root = .dataDirectory
            folder = dataDirectory
        }
    }

    /// Path (relative to the folder) → contents, base64.
    func read() throws -> [String: String] {
        var paths: [String] = []
        switch root {
        case .dataDirectory:
            paths = Self.files(under: folder + "/secrets").map { "secrets/" + $0 }
            paths += Self.dataDirectoryFiles.filter { FileManager.default.fileExists(atPath: folder + "/" + $0) }
        case .secretsDirectory:
            paths = Self.files(under: folder)
        }
        let sealingKey = root == .dataDirectory ? Self.sealingKey : "sealing-key"
        guard paths.contains(sealingKey) else {
            throw CLIError(
                "\(folder)/\(sealingKey) is missing: without the sealing key a backup could never be opened; check --data-dir or --secrets-dir")
        }
        var files: [String: String] = [:]
        for path in paths {
            guard let data = FileManager.default.contents(atPath: folder + "/" + path) else { throw CLIError("cannot read \(folder)/\(path)") }
            files[path] = data.base64EncodedString()
        }
        return files
    }

    /// Writes `files` under `folder`: private files in private folders.
    static func write(_ files: [String: String], into folder: String) throws {
        for (path, base64) in files.sorted(by: { $0.key < $1.key }) {
            guard !path.hasPrefix("/"), !path.split(separator: "/").contains(".."), let data = Data(base64Encoded: base64) else {
                throw CLIError("the secrets archive names a file it may not write: \(path)")
            }
            let target = folder + "/" + path
            let parent = (target as NSString).deletingLastPathComponent
            // Folders inside (secrets/, tls/) are private; the folder itself keeps the mode it was made with.
            if parent != folder { try Files.makeDirectory(parent) }
            try Files.create(Array(data), at: target, mode: 0o600, exclusive: false)
        }
    }

    /// Regular files under `folder`, relative to it.
    static func files(under folder: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        var files: [String] = []
        while let path = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue { files.append(path) }
        }
        return files.sorted()
    }
}
