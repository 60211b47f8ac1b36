import Foundation

/// Small file operations the command line repeats: secrets written with their mode, files read trimmed.
enum Files {
    static func write(_ text: String, to path: String, mode: Int16 = 0o600) throws {
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: mode])
        guard FileManager.default.fileExists(atPath: path) else { throw CocoaError(.fileWriteUnknown) }
        _ = chmod(path, mode_t(mode))
    }

    static func read(_ path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func makeDirectory(_ path: String, mode: Int16 = 0o700) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: mode])
        _ = chmod(path, mode_t(mode))
    }

    static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: full).standardizedFileURL.path
    }
}
