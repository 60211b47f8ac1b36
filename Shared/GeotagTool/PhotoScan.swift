import CustodianGeotag

/// What the first pass learns of one photo: its capture time and the route QR codes it shows. The photo's
/// bytes are not kept, so that a folder of large photos is read one at a time.
public struct PhotoScan: Sendable, Equatable {
    public var name: String
    public var captureTime: CaptureTime?
    /// The QR codes that read as `<unix time>-<nonce>`; others (a poster, a product) are ignored.
    public var routeQRCodes: [RouteQRText]
    /// Why the photo cannot be geotagged at all (not a JPEG, damaged Exif data).
    public var problem: String?

    public init(name: String, captureTime: CaptureTime?, routeQRCodes: [RouteQRText] = [], problem: String? = nil) {
        self.name = name
        self.captureTime = captureTime
        self.routeQRCodes = routeQRCodes
        self.problem = problem
    }

    public init(name: String, jpeg: [UInt8]) {
        self.name = name
        routeQRCodes = []
        do {
            captureTime = try ExifMetadata(jpeg: jpeg).captureTime
        } catch {
            captureTime = nil
            problem = "\(error)"
            return
        }
        // Pixels that libjpeg-turbo cannot decode (a colour space it cannot turn grey) only mean that this is not
        // the QR photo: the GPS tags do not need them.
        guard let image = try? GreyImage(jpeg: jpeg) else { return }
        var seen: Set<RouteQRText> = []
        routeQRCodes = QRDecoder.decode(image).compactMap { try? RouteQRText(parsing: $0) }.filter { seen.insert($0).inserted }
    }
}
