import CustodianContracts
import CustodianHTTP
import CustodianQR
import CustodianRPC
import Foundation

/// Turns a render request into the image's HTTP response, the one thing `links.qr.render` and the admin route
/// share.
enum QRImages {
    /// libpng takes the image at a byte a pixel before it deflates it: 8192 pixels a side is 64 MiB, which a links
    /// replica (256 MiB in Deploy/k8s/links.yaml) holds once for each core at a time. The file itself is small (about
    /// 160 KB for the largest symbol at the largest size allowed). SVGs scale freely and have no limit.
    static let maximumPNGPixels = 8192

    static func render(_ input: QRRenderInput) throws -> RawHTTPReply {
        try input.validate()
        let code = try encode(input.payload, errorCorrection: input.errorCorrection)
        let layout = QRLayout(code: code, moduleSize: input.moduleSize, margin: input.margin)
        switch input.format {
        case .png:
            guard layout.pixelsPerSide <= maximumPNGPixels else {
                throw RPCError.badRequest(
                    "The PNG would be \(layout.pixelsPerSide) pixels wide (\(layout.modulesPerSide) modules of \(input.moduleSize) pixels); "
                        + "at most \(maximumPNGPixels) are allowed, so use a smaller module size or margin, or SVG",
                    reason: "image_too_large")
            }
            do throws(PNGEncoderError) {
                return reply(try PNGEncoder.encode(layout), contentType: "image/png")
            } catch {
                throw RPCError.internal(error.description)
            }
        case .svg:
            return reply(Data(SVGRenderer.render(layout).utf8), contentType: "image/svg+xml")
        }
    }

    /// The symbol for `payload`, with encoding failures as the RPC errors callers get.
    static func encode(_ payload: String, errorCorrection: QRErrorCorrection) throws -> QRCode {
        do throws(QRCodeError) {
            return try QRCode(encoding: payload, errorCorrection: QRCode.ErrorCorrection(errorCorrection))
        } catch {
            switch error {
            case .emptyPayload: throw RPCError.badRequest(error.description, reason: "missing_data")
            case .payloadTooLong: throw RPCError.badRequest(error.description, reason: "payload_too_long")
            case .encoderFailed: throw RPCError.internal(error.description)
            }
        }
    }

    private static func reply(_ body: Data, contentType: String) -> RawHTTPReply {
        // A QR code often carries a secret (an activation link, a device's proof of possession): never cache it.
        RawHTTPReply(
            status: 200,
            headers: [
                "Content-Type": contentType,
                "Cache-Control": "no-store",
                "X-Content-Type-Options": "nosniff",
            ], body: body)
    }
}
