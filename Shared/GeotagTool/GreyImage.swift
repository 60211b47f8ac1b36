import CTurboJPEG

/// 8-bit grey pixels, row by row: what the QR decoder reads, and what the tests draw QR codes into.
public struct GreyImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height, "a grey image has width × height pixels")
        (self.width, self.height, self.pixels) = (width, height, pixels)
    }

    /// Decodes a JPEG with libjpeg-turbo, scaled down by the largest of its DCT scaling factors (1/2, 1/4,
    /// 1/8) that keeps the longer side at least `longerSide` pixels: a smaller image spares the inverse DCT, the
    /// memory and above all zbar's time, which grows with the pixels, and a QR code that fills a fair part of the
    /// frame stays readable.
    public init(jpeg: [UInt8], longerSide: Int = 2048) throws(JPEGCodecError) {
        let size = try Self.size(of: jpeg)
        try self.init(jpeg: jpeg, denominator: Self.denominator(width: size.width, height: size.height, longerSide: longerSide))
    }

    /// Decodes a JPEG at 1/`denominator` of its size (1, 2, 4 or 8), each side rounded up.
    public init(jpeg: [UInt8], denominator: Int) throws(JPEGCodecError) {
        precondition([1, 2, 4, 8].contains(denominator), "libjpeg-turbo scales by 1/1, 1/2, 1/4 or 1/8 here")
        guard let handle = tjInitDecompress() else { throw .codec("cannot start the JPEG decoder") }
        defer { tjDestroy(handle) }
        let (width, height) = try Self.header(handle, jpeg)
        let scaledWidth = (width + denominator - 1) / denominator, scaledHeight = (height + denominator - 1) / denominator
        var pixels = [UInt8](repeating: 0, count: scaledWidth * scaledHeight)
        let result = tjDecompress2(
            handle, jpeg, UInt(jpeg.count), &pixels, Int32(scaledWidth), 0, Int32(scaledHeight),
            Int32(TJPF_GRAY.rawValue), 0)
        // A warning (a slightly damaged file) still yields pixels; only a fatal error does not.
        guard result == 0 || tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue) else { throw .codec(Self.message(handle)) }
        self.init(width: scaledWidth, height: scaledHeight, pixels: pixels)
    }

    /// The JPEG's width and height, from its frame header, without decoding anything.
    public static func size(of jpeg: [UInt8]) throws(JPEGCodecError) -> (width: Int, height: Int) {
        guard let handle = tjInitDecompress() else { throw .codec("cannot start the JPEG decoder") }
        defer { tjDestroy(handle) }
        return try header(handle, jpeg)
    }

    /// The largest scaling denominator (1, 2, 4, 8) at which the longer side is still at least `longerSide` pixels.
    public static func denominator(width: Int, height: Int, longerSide: Int) -> Int {
        var denominator = 1
        while denominator < 8, max(width, height) / (denominator * 2) >= longerSide { denominator *= 2 }
        return denominator
    }

    private static func header(_ handle: tjhandle, _ jpeg: [UInt8]) throws(JPEGCodecError) -> (width: Int, height: Int) {
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colourspace: Int32 = 0
        guard tjDecompressHeader3(handle, jpeg, UInt(jpeg.count), &width, &height, &subsampling, &colourspace) == 0 else {
            throw .codec(message(handle))
        }
        return (Int(width), Int(height))
    }

    /// A baseline grey JPEG (JFIF, no Exif) at `quality` 1–100.
    public func jpeg(quality: Int = 92) throws(JPEGCodecError) -> [UInt8] {
        guard let handle = tjInitCompress() else { throw .codec("cannot start the JPEG encoder") }
        defer { tjDestroy(handle) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = tjCompress2(
            handle, pixels, Int32(width), 0, Int32(height), Int32(TJPF_GRAY.rawValue), &buffer, &size,
            Int32(TJSAMP_GRAY.rawValue), Int32(quality), 0)
        defer { tjFree(buffer) }
        guard result == 0, let buffer else { throw .codec(Self.message(handle)) }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }

    private static func message(_ handle: tjhandle) -> String {
        tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown libjpeg-turbo error"
    }
}

public enum JPEGCodecError: Error, Sendable, Equatable, CustomStringConvertible {
    case codec(String)

    public var description: String {
        switch self {
        case .codec(let message): "cannot decode the image: \(message)"
        }
    }
}
