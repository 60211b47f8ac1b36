/// How far the camera's clock is off, measured by the photo of the QR code: the code shows the phone's time
/// (`<unix time>-<nonce>`, whole seconds, redrawn every few seconds), the photo's Exif the camera's time of
/// the same moment. Adding the offset to any photo's camera time gives the route's time.
///
/// The code is drawn before the shutter fires, never after, so each QR photo gives a lower bound of the
/// offset; with several photos of the same code, the largest bound is the closest.
public struct ClockCorrection: Sendable, Equatable {
    /// Seconds to add to a camera time.
    public let offset: Double

    public init(offset: Double) {
        self.offset = offset
    }

    public init(qrTime: Int64, photographedAt capture: CaptureTime) {
        offset = Double(qrTime) - capture.cameraSeconds
    }

    public func correct(_ capture: CaptureTime) -> Double {
        capture.cameraSeconds + offset
    }
}
