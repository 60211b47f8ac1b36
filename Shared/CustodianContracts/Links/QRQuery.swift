import CustodianHTTP
import CustodianRPC

/// `GET /admin/v1/qr?data=…&format=png|svg&ec=M&size=8&margin=4` as a render request. Errors name the query
/// parameters, since that is what the person at the other end typed.
public struct QRQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public static let parameters = ["data", "format", "ec", "size", "margin"]

    public var render: QRRenderInput

    public init(render: QRRenderInput) {
        self.render = render
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        // An unknown parameter is most likely a misspelt one (`level=H`); ignoring it would draw the wrong code.
        if let unknown = try request.queryNames().first(where: { !Self.parameters.contains($0) }) {
            throw RPCError.badRequest(
                "Unknown query parameter '\(unknown)'; the parameters are \(Self.parameters.joined(separator: ", "))", reason: "unknown_parameter")
        }
        guard let data = try request.singleQuery("data"), !data.isEmpty else {
            throw RPCError.badRequest("The query parameter 'data' is required: the text to encode", reason: "missing_data")
        }
        let formatName = try request.singleQuery("format") ?? QRRenderInput.Format.png.rawValue
        guard let format = QRRenderInput.Format(rawValue: formatName.lowercased()) else {
            throw RPCError.badRequest("format must be png or svg, not '\(formatName)'", reason: "invalid_format")
        }
        let levelName = try request.singleQuery("ec") ?? QRErrorCorrection.M.rawValue
        guard let level = QRErrorCorrection(rawValue: levelName.uppercased()) else {
            throw RPCError.badRequest("ec must be L, M, Q or H, not '\(levelName)'", reason: "invalid_error_correction")
        }
        let size = try Self.integer(
            "size", default: QRRenderInput.defaultModuleSize, in: QRRenderInput.moduleSizes, unit: "pixels per module",
            reason: "invalid_module_size", request)
        let margin = try Self.integer(
            "margin", default: QRRenderInput.defaultMargin, in: QRRenderInput.margins, unit: "modules", reason: "invalid_margin", request)
        render = QRRenderInput(payload: data, format: format, errorCorrection: level, moduleSize: size, margin: margin)
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(query: [
            "data": [render.payload], "format": [render.format.rawValue], "ec": [render.errorCorrection.rawValue],
            "size": [String(render.moduleSize)], "margin": [String(render.margin)],
        ]).encode(to: encoder)
    }

    private static func integer(
        _ name: String, default defaultValue: Int, in range: ClosedRange<Int>, unit: String, reason: String,
        _ request: RequestReader
    ) throws -> Int {
        guard let text = try request.singleQuery(name) else { return defaultValue }
        guard let value = Int(text), range.contains(value) else {
            throw RPCError.badRequest(
                "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound) (\(unit)), not '\(text)'", reason: reason)
        }
        return value
    }
}
