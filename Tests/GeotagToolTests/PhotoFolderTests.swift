import Foundation
import Testing
@testable import GeotagTool

@Suite("Photo folders")
struct PhotoFolderTests {
    /// A memory card's layout: photos in DCIM's subfolders, one at the top, hidden ones and other files.
    static func card() throws -> String {
        let root = NSTemporaryDirectory() + "geotag-card-\(UUID().uuidString.prefix(8))"
        let jpeg = try ExifFixture.jpeg(tiff: ExifFixture.tiff(.bigEndian))
        for path in [
            "qr.jpg", "100CANON/IMG_0001.JPG", "100CANON/IMG_0002.jpeg", "101CANON/IMG_0101.JPG", "101CANON/sub/deep.jpg",
            ".thumbnails/IMG_0001.JPG", "100CANON/.IMG_0003.JPG",
        ] {
            try FileManager.default.createDirectory(
                atPath: ((root + "/" + path) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(jpeg).write(to: URL(fileURLWithPath: root + "/" + path))
        }
        try Data("notes".utf8).write(to: URL(fileURLWithPath: root + "/100CANON/notes.txt"))
        try FileManager.default.createSymbolicLink(atPath: root + "/101CANON/loop", withDestinationPath: root)
        return root
    }

    @Test func onlyTheFolderItselfUnlessRecursive() throws {
        let root = try Self.card()
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(try PhotoFolder.photos(in: root) == ["qr.jpg"])
        // Folder by folder, without hidden ones, and not round the symbolic link back to the top.
        #expect(
            try PhotoFolder.photos(in: root, recursive: true)
                == ["100CANON/IMG_0001.JPG", "100CANON/IMG_0002.jpeg", "101CANON/IMG_0101.JPG", "101CANON/sub/deep.jpg", "qr.jpg"])
        #expect(
            try PhotoFolder.photos(in: root, recursive: true, skipping: "101CANON") == ["100CANON/IMG_0001.JPG", "100CANON/IMG_0002.jpeg", "qr.jpg"])
        #expect(PhotoFolder.relativePath(of: root + "/101CANON/sub/", inside: root) == "101CANON/sub")
        #expect(PhotoFolder.relativePath(of: root + "/missing", inside: root) == nil)
        #expect(PhotoFolder.relativePath(of: NSTemporaryDirectory(), inside: root) == nil)
        #expect(GeotagError.noPhotos(folder: "card", recursive: true).description == "no JPEG photos (*.jpg, *.jpeg) in card or its subfolders")
    }

    @Test func theOutputFolderKeepsTheSubfolders() throws {
        let root = try Self.card()
        let output = root + "-tagged"
        defer { try? FileManager.default.removeItem(atPath: root); try? FileManager.default.removeItem(atPath: output) }
        let tags = GPSTags(position: GeoPosition(latitude: 52.09, longitude: 5.12, altitude: nil), time: 1_764_000_000)
        let plan = [
            PlannedPhoto(name: "100CANON/IMG_0001.JPG", correctedTime: 1_764_000_000, action: .tag(tags)),
            PlannedPhoto(name: "100CANON/IMG_0002.jpeg", correctedTime: nil, action: .skip("no capture time")),
            PlannedPhoto(name: "101CANON/sub/deep.jpg", correctedTime: 1_764_000_000, action: .tag(tags)),
            PlannedPhoto(name: "100CANON/gone.jpg", correctedTime: 1_764_000_000, action: .tag(tags)),
        ]
        let before = try PhotoFolder.read(root + "/100CANON/IMG_0001.JPG")
        let done = PhotoFolder.apply(plan, folder: root, output: output)
        #expect(try PhotoFolder.photos(in: output, recursive: true) == ["100CANON/IMG_0001.JPG", "101CANON/sub/deep.jpg"])
        #expect(try ExifMetadata(jpeg: PhotoFolder.read(output + "/101CANON/sub/deep.jpg")).gps?.position.latitude ?? 0 > 52)
        #expect(try PhotoFolder.read(root + "/100CANON/IMG_0001.JPG") == before)
        #expect(done[0] == plan[0] && done[1] == plan[1])
        guard case .skip(let reason) = done[3].action else { Issue.record("gone.jpg was written"); return }
        #expect(reason.hasPrefix("cannot write it:"))

        // In place, in its own subfolder.
        _ = PhotoFolder.apply([plan[0]], folder: root, output: nil)
        #expect(try ExifMetadata(jpeg: PhotoFolder.read(root + "/100CANON/IMG_0001.JPG")).gps != nil)
    }
}
