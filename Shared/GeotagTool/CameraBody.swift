import Foundation

/// The camera a photo was taken with, as its Exif data name it: Make and Model (IFD0), and BodySerialNumber
/// (Exif IFD, 0xA431) when the camera writes one, since two bodies of the same model have two clocks.
public struct CameraBody: Sendable, Hashable, CustomStringConvertible {
    public var make: String?
    public var model: String?
    public var serial: String?

    /// nil when the photo names no camera at all; blanks (which some cameras pad these tags with) count as missing.
    public init?(make: String?, model: String?, serial: String?) {
        func clean(_ text: String?) -> String? {
            guard let trimmed = text?.trimmingCharacters(in: .whitespaces), !trimmed.isEmpty else { return nil }
            return trimmed
        }
        (self.make, self.model, self.serial) = (clean(make), clean(model), clean(serial))
        guard self.make != nil || self.model != nil || self.serial != nil else { return nil }
    }

    /// `Canon EOS R6 (serial 083021001234)`. The make is left out when the model already starts with its first word,
    /// as Canon's and Nikon's do (`NIKON CORPORATION`, `NIKON D850`).
    public var description: String {
        var name: String
        switch (make, model) {
        case (let make?, let model?):
            let brand = make.split(separator: " ").first.map { $0.lowercased() } ?? ""
            name = model.lowercased().hasPrefix(brand) ? model : make + " " + model
        case (let make?, nil): name = make
        case (nil, let model?): name = model
        case (nil, nil): name = "camera"
        }
        if let serial { name += " (serial \(serial))" }
        return name
    }
}

/// How many photos each camera took, and the warning when there is more than one: every camera's clock is off by
/// its own amount, so the correction that one camera's QR photo measures misplaces the other camera's photos (one
/// clock off by a few minutes is kilometres on a bicycle).
public enum CameraBodies {
    public struct Count: Sendable, Equatable {
        public var body: CameraBody
        public var photos: Int
    }

    /// The cameras, most photos first. A photo without BodySerialNumber counts for the one body of its make and
    /// model that has one, when there is exactly one (a photo edited by a program that dropped the tag); with two
    /// or more serials it is a body of its own, since it cannot be told which it was.
    public static func count(_ scans: [PhotoScan]) -> [Count] {
        let resolve = resolver(scans)
        var counts: [CameraBody: Int] = [:]
        var order: [CameraBody] = []
        for camera in scans.compactMap(\.camera) {
            let body = resolve(camera)
            if counts[body] == nil { order.append(body) }
            counts[body, default: 0] += 1
        }
        return order.map { Count(body: $0, photos: counts[$0]!) }
            .enumerated().sorted { ($1.element.photos, $0.offset) < ($0.element.photos, $1.offset) }.map(\.element)
    }

    /// Nil with one camera (or none named); else what to tell the photographer, in lines, naming the QR photo's camera.
    public static func warning(_ scans: [PhotoScan], qrPhoto: String) -> String? {
        let counts = count(scans)
        guard counts.count > 1 else { return nil }
        let unnamed = scans.count { $0.camera == nil }
        var rows = counts.map { ($0.body.description, photos($0.photos)) }
        if unnamed > 0 { rows.append(("no camera named in Exif", photos(unnamed))) }
        let nameWidth = rows.map(\.0.count).max() ?? 0, countWidth = rows.map(\.1.count).max() ?? 0
        var lines = ["Warning: these photos come from \(counts.count) cameras, whose clocks differ:"]
        for (name, number) in rows {
            lines.append(
                "  " + name + String(repeating: " ", count: nameWidth - name.count + 2)
                    + String(repeating: " ", count: countWidth - number.count) + number)
        }
        let others = counts.count == 2 ? "the other camera's photos" : "the other cameras' photos"
        if let body = scans.first(where: { $0.name == qrPhoto })?.camera.map(resolver(scans)) {
            lines.append("The QR photo \(qrPhoto) was taken with the \(body). Its clock correction fits that camera's photos only:")
            lines.append("\(others) may be placed far from where they were taken.")
        } else {
            lines.append("The QR photo \(qrPhoto) names no camera. Its clock correction fits one camera's photos at most:")
            lines.append("the others may be placed far from where they were taken.")
        }
        lines.append("Run custodian geotag once per camera, on a folder of that camera's photos with a photo of the QR code taken with it.")
        return lines.joined(separator: "\n")
    }

    static func photos(_ count: Int) -> String {
        count == 1 ? "1 photo" : "\(count) photos"
    }

    private struct Model: Hashable {
        var make: String?
        var model: String?
    }

    private static func resolver(_ scans: [PhotoScan]) -> @Sendable (CameraBody) -> CameraBody {
        var serials: [Model: Set<String>] = [:]
        for camera in scans.compactMap(\.camera) {
            if let serial = camera.serial { serials[Model(make: camera.make, model: camera.model), default: []].insert(serial) }
        }
        let only = serials.compactMapValues { $0.count == 1 ? $0.first : nil }
        return { camera in
            guard camera.serial == nil, let serial = only[Model(make: camera.make, model: camera.model)] else { return camera }
            var resolved = camera
            resolved.serial = serial
            return resolved
        }
    }
}
