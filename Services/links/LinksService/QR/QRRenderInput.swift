import CustodianRPC

/// The input of `links.qr.render`: what to encode and how the image should look. Public so that other
/// services (device labels in `devices`, login QR codes in `vault`) can call the method with it.
public struct QRRenderInput: Codable, Sendable, Equatable {
    public enum Format: String, Codable, Sendable, CaseIterable {
        case png, svg
    }

    /// Encoded as its UTF-8 bytes, in 8-bit mode: a scanner gives back exactly this text.
    public var payload: String
    public var format: Format
    public var errorCorrection: QRCode.ErrorCorrection
    /// Pixels per module.
    public var moduleSize: Int
    /// Light modules around the symbol.
    public var margin: Int

    public static let moduleSizes = 1...64
    public static let margins = 0...16
    public static let defaultModuleSize = 8
    /// The quiet zone ISO/IEC 18004 asks for.
    public static let defaultMargin = 4

    public init(payload: String, format: Format, errorCorrection: QRCode.ErrorCorrection = .M,
                moduleSize: Int = Self.defaultModuleSize, margin: Int = Self.defaultMargin) {
        self.payload = payload
        self.format = format
        self.errorCorrection = errorCorrection
        self.moduleSize = moduleSize
        self.margin = margin
    }

    enum CodingKeys: String, CodingKey { case payload, format, errorCorrection, moduleSize, margin }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        payload = try container.decode(String.self, forKey: .payload)
        // Spelled out, so that a wrong value gets a message that says what is allowed.
        let formatName = try container.decode(String.self, forKey: .format)
        guard let format = Format(rawValue: formatName) else {
            throw DecodingError.dataCorruptedError(forKey: .format, in: container, debugDescription: "must be \"png\" or \"svg\", not \"\(formatName)\"")
        }
        self.format = format
        let levelName = try container.decodeIfPresent(String.self, forKey: .errorCorrection) ?? QRCode.ErrorCorrection.M.rawValue
        guard let level = QRCode.ErrorCorrection(rawValue: levelName) else {
            throw DecodingError.dataCorruptedError(
                forKey: .errorCorrection, in: container, debugDescription: "must be \"L\", \"M\", \"Q\" or \"H\", not \"\(levelName)\"")
        }
        errorCorrection = level
        moduleSize = try container.decodeIfPresent(Int.self, forKey: .moduleSize) ?? Self.defaultModuleSize
        margin = try container.decodeIfPresent(Int.self, forKey: .margin) ?? Self.defaultMargin
    }

    /// Refuses values out of range, in the method's own terms.
    func validate() throws {
        guard !payload.isEmpty else {
            throw RPCError.badRequest("payload must not be empty", reason: "missing_data")
        }
        guard Self.moduleSizes.contains(moduleSize) else {
            throw RPCError.badRequest("moduleSize must be from 1 to 64 pixels, not \(moduleSize)", reason: "invalid_module_size")
        }
        guard Self.margins.contains(margin) else {
            throw RPCError.badRequest("margin must be from 0 to 16 modules, not \(margin)", reason: "invalid_margin")
        }
    }
}
