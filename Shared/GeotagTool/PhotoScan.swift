import CustodianGeotag

/// What the first pass learns of one photo: its capture time, its camera and the route QR codes it shows. The
/// photo's bytes are not kept, so that a folder of large photos is read a few at a time.
public struct PhotoScan: Sendable, Equatable {
    public var name: String
    public var captureTime: CaptureTime?
    public var camera: CameraBody?
    /// The QR codes that read as `<unix time>-<nonce>`; others (a poster, a product) are ignored.
    public var routeQRCodes: [RouteQRText]
    /// Why the photo cannot be geotagged at all (not a JPEG, damaged Exif data).
    public var problem: String?
    /// The scaling denominators (1, 2, 4, 8) the QR search decoded the photo at, in that order; empty when it was
    /// never decoded.
    var searchedDenominators: [Int] = []
    /// Width and height, once the QR search read the frame header; nil before, or when there is none to read.
    var pixelSize: PixelSize?
    /// False once the frame header turned out unreadable: no scale will decode the photo then.
    var decodable = true

    struct PixelSize: Sendable, Equatable {
        var width: Int
        var height: Int
    }

    public init(
        name: String, captureTime: CaptureTime?, camera: CameraBody? = nil, routeQRCodes: [RouteQRText] = [],
        problem: String? = nil
    ) {
        self.name = name
        self.captureTime = captureTime
        self.camera = camera
        self.routeQRCodes = routeQRCodes
        self.problem = problem
    }

    /// The Exif data and a look for QR codes at the scale that keeps the longer side at least 2048 pixels,
    /// whatever the photo's capture time.
    public init(name: String, jpeg: [UInt8]) {
        self.init(name: name, exifOf: jpeg)
        if problem == nil { searchQR(in: jpeg, longerSide: 2048) }
    }

    /// The Exif data only.
    init(name: String, exifOf jpeg: [UInt8]) {
        self.init(name: name, captureTime: nil)
        do {
            let metadata = try ExifMetadata(jpeg: jpeg)
            (captureTime, camera) = (metadata.captureTime, metadata.camera)
        } catch {
            problem = "\(error)"
        }
    }

    /// Whether a search at the scale that keeps the longer side at least `longerSide` pixels would decode the photo
    /// at a scale it has not been decoded at yet (before its size is known: whether it is decodable at all).
    func wouldSearch(longerSide: Int) -> Bool {
        guard problem == nil, decodable else { return false }
        guard let size = pixelSize else { return true }
        return !searchedDenominators.contains(GreyImage.denominator(width: size.width, height: size.height, longerSide: longerSide))
    }

    /// Decodes the photo at that scale, unless it was decoded at it before, and adds the route codes found.
    mutating func searchQR(in jpeg: [UInt8], longerSide: Int) {
        // Pixels that libjpeg-turbo cannot decode (a colour space it cannot turn grey) only mean that this is not
        // the QR photo: the GPS tags do not need them.
        if pixelSize == nil {
            guard let size = try? GreyImage.size(of: jpeg) else {
                decodable = false
                return
            }
            pixelSize = PixelSize(width: size.width, height: size.height)
        }
        guard let size = pixelSize else { return }
        let denominator = GreyImage.denominator(width: size.width, height: size.height, longerSide: longerSide)
        guard !searchedDenominators.contains(denominator) else { return }
        searchedDenominators.append(denominator)
        guard let image = try? GreyImage(jpeg: jpeg, denominator: denominator) else { return }
        var seen = Set(routeQRCodes)
        routeQRCodes += QRDecoder.decode(image).compactMap { try? RouteQRText(parsing: $0) }.filter { seen.insert($0).inserted }
    }
}
