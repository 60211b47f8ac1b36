import Foundation

/// The JPEG files of a folder, and how a geotagged photo replaces one: written to a temporary file beside
/// it and renamed over it, so that a crash or a full disk never leaves half a photo.
public enum PhotoFolder {
    /// The `*.jpg` and `*.jpeg` files (any case) directly in `folder`, sorted by name.
    public static func photos(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { name in
                let lower = name.lowercased()
                return !name.hasPrefix(".") && (lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg"))
            }
            .sorted()
    }

    public static func read(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path]) }
        return [UInt8](data)
    }

    /// Writes `bytes` to `path` atomically, keeping the permissions of the file it replaces.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        let permissions = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions]
        let temporary = (path as NSString).deletingLastPathComponent + "/.\((path as NSString).lastPathComponent).geotag-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: temporary))
        if let permissions { try? FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: temporary) }
        guard rename(temporary, path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(atPath: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)])
        }
    }
}
