import CZbar

/// Finds and decodes the QR codes in a grey image with libzbar (only QR codes: the other symbologies would
/// cost time and find barcodes on products in the photos).
public enum QRDecoder {
    /// The text of every QR code zbar reads in the image, in the order it reports them.
    public static func decode(_ image: GreyImage) -> [String] {
        guard let scanner = zbar_image_scanner_create() else { return [] }
        defer { zbar_image_scanner_destroy(scanner) }
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1)
        guard let zimage = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(zimage) }
        zbar_image_set_format(zimage, custodian_zbar_format_y800())
        zbar_image_set_size(zimage, UInt32(image.width), UInt32(image.height))
        return image.pixels.withUnsafeBufferPointer { pixels in
            // zbar only reads the pixels, during the scan; no clean-up handler, the buffer stays ours.
            zbar_image_set_data(zimage, pixels.baseAddress, UInt(pixels.count), nil)
            defer { zbar_image_set_data(zimage, nil, 0, nil) }
            guard zbar_scan_image(scanner, zimage) > 0 else { return [] }
            var texts: [String] = []
            var symbol = zbar_image_first_symbol(zimage)
            while let current = symbol {
                if zbar_symbol_get_type(current) == ZBAR_QRCODE, let data = zbar_symbol_get_data(current) {
                    let length = Int(zbar_symbol_get_data_length(current))
                    texts.append(String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self))
                }
                symbol = zbar_symbol_next(current)
            }
            return texts
        }
    }
}
