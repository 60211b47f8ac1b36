import Foundation

/// The JPEG files of a folder, and how a geotagged photo replaces one: written to a temporary file beside
/// it and renamed over it, so that a crash or a full disk never leaves half a photo.
public enum PhotoFolder {
    /// The `*.jpg` and `*.jpeg` files (any case) in `folder`, by their paths relative to it, sorted folder by
    /// folder. With `recursive`, those of its subfolders too (a card's `DCIM/100CANON`, `101CANON` …), but not of
    /// hidden folders, of `skipping` (a path relative to `folder`: the output folder inside it, whose photos are
    /// copies), nor of symbolic links to folders, which could lead in a circle.
    public static func photos(in folder: String, recursive: Bool = false, skipping: String? = nil) throws -> [String] {
        var found: [String] = []
        func visit(_ relative: String) throws {
            for name in try FileManager.default.contentsOfDirectory(atPath: relative.isEmpty ? folder : folder + "/" + relative) {
                guard !name.hasPrefix(".") else { continue }
                let path = relative.isEmpty ? name : relative + "/" + name
                if recursive, isFolder(folder + "/" + path) {
                    if path != skipping { try visit(path) }
                } else if isPhotoName(name) {
                    found.append(path)
                }
            }
        }
        try visit("")
        return found.sorted { $0.split(separator: "/").lexicographicallyPrecedes($1.split(separator: "/")) }
    }

    static func isPhotoName(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg")
    }

    /// A folder itself, not a symbolic link to one (the attributes are the link's own).
    static func isFolder(_ path: String) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType == .typeDirectory
    }

    /// `path` relative to `folder` when it is an existing folder inside it (symbolic links resolved), else nil.
    public static func relativePath(of path: String, inside folder: String) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
        let inner = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().pathComponents
        let outer = URL(fileURLWithPath: folder).standardizedFileURL.resolvingSymlinksInPath().pathComponents
        guard inner.count > outer.count, Array(inner.prefix(outer.count)) == outer else { return nil }
        return inner.dropFirst(outer.count).joined(separator: "/")
    }

    public static func read(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
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
            throw CocoaError(
                .fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)])
        }
    }

    /// Writes the GPS tags of every photo the plan tags, in place in `folder` or into `output` at the same relative
    /// path (its subfolders created as needed); a photo that cannot be written becomes a skipped one saying why.
    public static func apply(_ plan: [PlannedPhoto], folder: String, output: String?) -> [PlannedPhoto] {
        var plan = plan
        for index in plan.indices {
            guard case .tag(let tags) = plan[index].action else { continue }
            let name = plan[index].name
            do {
                let tagged = try ExifGPSWriter.write(tags, into: read(folder + "/" + name))
                let target = (output ?? folder) + "/" + name
                if output != nil {
                    try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                }
                try write(tagged, to: target)
            } catch {
                plan[index].action = .skip("cannot write it: \(error)")
            }
        }
        return plan
    }
}
