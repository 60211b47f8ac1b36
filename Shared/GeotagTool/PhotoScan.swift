import CustodianGeotag

/// What the first pass learns of one photo: its capture time and the route QR codes it shows. The photo's
/// bytes are not kept, so that a folder of large photos is read one at a time.
public struct PhotoScan: Sendable, Equatable {
    public var name: String
    public var captureTime: CaptureTime?
    /// The QR codes that read as `<unix time>-<nonce>`; others (a poster, a product) are ignored.
    public var routeQRCodes: [RouteQRText]
    /// Why the photo cannot be geotagged at all (not a readable JPEG, damaged Exif data).
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
        do {
            let texts = QRDecoder.decode(try GreyImage(jpeg: jpeg))
            var seen: Set<RouteQRText> = []
            routeQRCodes = texts.compactMap { try? RouteQRText(parsing: $0) }.filter { seen.insert($0).inserted }
        } catch {
            problem = "\(error)"
        }
    }
}
