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

enum FreePort {
    /// A TCP port on 127.0.0.1 that nobody listens on right now.
    static func find() throws -> Int {
        let socket = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(socket, pointer, length) == 0 else { return -1 }
                return getsockname(socket, pointer, &length)
            }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
