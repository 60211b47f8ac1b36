/// Why `custodian geotag` cannot geotag a folder at all (as opposed to skipping one photo).
public enum GeotagError: Error, Sendable, Equatable, CustomStringConvertible {
    case noPhotos(folder: String, recursive: Bool = false)
    case noQRPhoto(photos: Int)
    case severalRoutes([(photo: String, qr: String)])
    case qrPhotoWithoutCaptureTime(String)
    case qrPhotosDisagree(String, String, seconds: Double)

    public var description: String {
        switch self {
        case .noPhotos(let folder, let recursive):
            "no JPEG photos (*.jpg, *.jpeg) in \(folder)\(recursive ? " or its subfolders" : "")"
        case .noQRPhoto(let photos):
            "none of the \(photos) photos shows the route's QR code (<unix time>-<nonce>): photograph the code the app shows and add that photo"
        case .severalRoutes(let codes):
            "photos show the QR codes of different routes: "
                + codes.map { "\($0.photo) (\($0.qr))" }.joined(separator: ", ") + "; keep only the one of this tour"
        case .qrPhotoWithoutCaptureTime(let photo):
            "\(photo) shows the QR code but has no capture time (Exif DateTimeOriginal or DateTime), so the camera clock cannot be corrected"
        case .qrPhotosDisagree(let first, let second, let seconds):
            "the QR photos \(first) and \(second) put the camera clock \(Int(seconds.rounded())) s apart; keep only one of them"
        }
    }

    public static func == (lhs: GeotagError, rhs: GeotagError) -> Bool {
        lhs.description == rhs.description
    }
}
