import CustodianContracts
import CustodianHTTP
import CustodianRPC

/// `GET /admin/v1/qr?data=…&format=png|svg&ec=M&size=8&margin=4` as a render request. Errors name the query
/// parameters, since that is what the person at the other end typed.
enum QRQuery {
    static let parameters = ["data", "format", "ec", "size", "margin"]

    static func renderInput(from input: HTTPInput) throws -> QRRenderInput {
        // An unknown parameter is most likely a misspelt one (`level=H`); ignoring it would draw the wrong code.
        if let unknown = input.query.keys.sorted().first(where: { !parameters.contains($0) }) {
            throw RPCError.badRequest(
                "Unknown query parameter '\(unknown)'; the parameters are \(parameters.joined(separator: ", "))", reason: "unknown_parameter")
        }
        guard let data = try input.singleQueryValue("data"), !data.isEmpty else {
            throw RPCError.badRequest("The query parameter 'data' is required: the text to encode", reason: "missing_data")
        }
        let formatName = try input.singleQueryValue("format") ?? QRRenderInput.Format.png.rawValue
        guard let format = QRRenderInput.Format(rawValue: formatName.lowercased()) else {
            throw RPCError.badRequest("format must be png or svg, not '\(formatName)'", reason: "invalid_format")
        }
        let levelName = try input.singleQueryValue("ec") ?? QRErrorCorrection.M.rawValue
        guard let level = QRErrorCorrection(rawValue: levelName.uppercased()) else {
            throw RPCError.badRequest("ec must be L, M, Q or H, not '\(levelName)'", reason: "invalid_error_correction")
        }
        let size = try integer(
            "size", default: QRRenderInput.defaultModuleSize, in: QRRenderInput.moduleSizes, unit: "pixels per module",
            reason: "invalid_module_size", input)
        let margin = try integer(
            "margin", default: QRRenderInput.defaultMargin, in: QRRenderInput.margins, unit: "modules", reason: "invalid_margin", input)
        return QRRenderInput(payload: data, format: format, errorCorrection: level, moduleSize: size, margin: margin)
    }

    private static func integer(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>, unit: String, reason: String,
                                _ input: HTTPInput) throws -> Int {
        guard let text = try input.singleQueryValue(name) else { return defaultValue }
        guard let value = Int(text), range.contains(value) else {
            throw RPCError.badRequest(
                "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound) (\(unit)), not '\(text)'", reason: reason)
        }
        return value
    }
}
