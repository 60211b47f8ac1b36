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

    /// Writes `bytes` to a file made with `mode` from the start (never readable by others in between, as a file
    /// chmod-ed after writing would be). `exclusive`: fail if the file exists. `durable`: on disk (fsync) before it
    /// returns. Errors say what the system said.
    static func create(_ bytes: [UInt8], at path: String, mode: mode_t, exclusive: Bool, durable: Bool = false) throws(WriteError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : O_TRUNC), mode)
        guard descriptor >= 0 else { throw WriteError(errno: errno) }
        var written = 0
        while written < bytes.count {
            let count = systemWrite(descriptor, bytes, from: written)
            guard count > 0 else {
                let error = WriteError(errno: errno)
                close(descriptor)
                unlink(path)
                throw error
            }
            written += count
        }
        if durable, fsync(descriptor) != 0 {
            let error = WriteError(errno: errno)
            close(descriptor)
            throw error
        }
        guard close(descriptor) == 0 else { throw WriteError(errno: errno) }
    }

    struct WriteError: Error, CustomStringConvertible {
        var errno: Int32
        var description: String { String(cString: strerror(errno)) }
    }

    static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: full).standardizedFileURL.path
    }
}

/// write(2), out of `Files`, whose own `write` would be found first inside it.
private func systemWrite(_ descriptor: Int32, _ bytes: [UInt8], from offset: Int) -> Int {
    bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
}
