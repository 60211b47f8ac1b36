import CPNG
import Foundation

/// Writes a QR code as a PNG with libpng's simplified API: a two-colour palette, black for dark modules and white
/// for everything else, which libpng stores at one bit a pixel and deflates.
public enum PNGEncoder {
    /// The palette, one gray byte an entry: index 0 is a dark module, index 1 a light one.
    static let palette: [UInt8] = [0x00, 0xFF]

    public static func encode(_ layout: QRLayout) throws(PNGEncoderError) -> Data {
        let pixels = paletteIndices(layout)
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        image.width = png_uint_32(layout.pixelsPerSide)
        image.height = png_uint_32(layout.pixelsPerSide)
        // Colour-mapped, and the map's entries are gray (PNG_FORMAT_GRAY is 0): with two entries libpng writes a
        // 1-bit palette image.
        image.format = png_uint_32(PNG_FORMAT_FLAG_COLORMAP)
        image.colormap_entries = png_uint_32(palette.count)
        // The most libpng can write, so one pass always fits. The deflated image is a small fraction of it; the pages
        // past what libpng writes are never touched, so they cost address space, not memory.
        let capacity = Int(custodian_png_image_png_size_max(image))
        var size = png_alloc_size_t(capacity)
        var written = false
        let png = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            written = pixels.withUnsafeBytes { pixels in
                palette.withUnsafeBytes { palette in
                    png_image_write_to_memory(&image, buffer.baseAddress, &size, 0, pixels.baseAddress, 0, palette.baseAddress) != 0
                }
            }
            count = written ? Int(size) : 0
        }
        // libpng has freed its state already, on success and on failure; png.h allows this call at any time.
        png_image_free(&image)
        guard written else {
            throw PNGEncoderError(message: withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        }
        return Data(png)
    }

    /// One byte a pixel, row by row, as the simplified API reads a colour-mapped image: each pixel's palette index.
    static func paletteIndices(_ layout: QRLayout) -> [UInt8] {
        let side = layout.pixelsPerSide
        return [UInt8](unsafeUninitializedCapacity: side * side) { buffer, count in
            for moduleRow in 0..<layout.modulesPerSide {
                let top = moduleRow * layout.moduleSize * side
                for x in 0..<side {
                    buffer[top + x] = layout.isDark(row: moduleRow, column: x / layout.moduleSize) ? 0 : 1
                }
                // A module is `moduleSize` pixels tall: the same row that many times.
                let row = UnsafeBufferPointer(rebasing: buffer[top..<(top + side)])
                for copy in 1..<layout.moduleSize {
                    let start = top + copy * side
                    _ = UnsafeMutableBufferPointer(rebasing: buffer[start..<(start + side)]).initialize(fromContentsOf: row)
                }
            }
            count = side * side
        }
    }
}

/// libpng refused to write the image (it ran out of memory, or found its input wrong); `message` is libpng's.
public struct PNGEncoderError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    public var description: String { "libpng could not write the PNG: \(message)" }
}
