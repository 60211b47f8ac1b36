import CustodianGeotag

/// The photo of the route's QR code among the scanned photos, and the camera clock correction it gives.
///
/// Several photos of the same route's code (the code is redrawn every few seconds with a new time and the same
/// nonce) are fine if they agree about the camera's clock within `agreement` seconds (the longest redraw period
/// the app offers is 30 s); the largest offset is taken (see `ClockCorrection`). Codes of different routes,
/// or photos that disagree, are an error: the tool cannot tell which one belongs to this tour.
public struct QRReference: Sendable, Equatable {
    public var qr: RouteQRText
    /// The photo whose code set the correction.
    public var photo: String
    public var correction: ClockCorrection

    public static let agreement: Double = 30

    public static func find(in scans: [PhotoScan]) throws(GeotagError) -> QRReference {
        let withCode = scans.filter { !$0.routeQRCodes.isEmpty }
        guard !withCode.isEmpty else { throw .noQRPhoto(photos: scans.count) }
        let codes = withCode.flatMap { scan in scan.routeQRCodes.map { (photo: scan.name, qr: $0) } }
        let nonces = Set(codes.map(\.qr.nonce))
        guard nonces.count == 1 else { throw .severalRoutes(codes.map { ($0.photo, $0.qr.text) }) }

        var candidates: [QRReference] = []
        for (photo, qr) in codes {
            guard let capture = withCode.first(where: { $0.name == photo })?.captureTime else {
                throw .qrPhotoWithoutCaptureTime(photo)
            }
            candidates.append(QRReference(qr: qr, photo: photo, correction: ClockCorrection(qrTime: qr.time, photographedAt: capture)))
        }
        let sorted = candidates.sorted { $0.correction.offset < $1.correction.offset }
        let (lowest, highest) = (sorted.first!, sorted.last!)
        guard highest.correction.offset - lowest.correction.offset <= agreement else {
            throw .qrPhotosDisagree(lowest.photo, highest.photo, seconds: highest.correction.offset - lowest.correction.offset)
        }
        return highest
    }
}
