import CustodianHTTP
import CustodianRPC

/// How a device's QR label offers it for provisioning (docs/twomes.md, "Provisioning steps", B4): over BLE, or as a temporary access point.
public enum LabelTransport: String, Sendable, Equatable {
    case ble, softap
}

/// The query parameters both label routes take.
enum LabelQuery {
    /// `?transport=ble|softap`, BLE when absent.
    static func transport(_ text: String?) throws -> LabelTransport {
        guard let text else { return .ble }
        guard let transport = LabelTransport(rawValue: text) else {
            throw RPCError.badRequest("transport must be ble or softap", reason: "invalid_transport")
        }
        return transport
    }

    /// `?ec=L|M|Q|H`, M when absent.
    static func errorCorrection(_ text: String?) throws -> QRErrorCorrection {
        guard let text else { return .M }
        guard let level = QRErrorCorrection(rawValue: text) else {
            throw RPCError.badRequest("ec must be L, M, Q or H", reason: "invalid_error_correction")
        }
        return level
    }
}

/// `GET /admin/v1/devices/{device_name}/label?format=png|svg&transport=ble|softap&ec=M&size=8`: one device's label.
public struct DeviceLabelRequest: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var name: String
    public var transport: LabelTransport
    public var format: QRRenderInput.Format
    public var errorCorrection: QRErrorCorrection
    /// Pixels per module.
    public var size: Int

    public init(
        name: String, transport: LabelTransport = .ble, format: QRRenderInput.Format = .png, errorCorrection: QRErrorCorrection = .M,
        size: Int = QRRenderInput.defaultModuleSize
    ) {
        self.name = name
        self.transport = transport
        self.format = format
        self.errorCorrection = errorCorrection
        self.size = size
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        name = try request.path("device_name")
        transport = try LabelQuery.transport(request.singleQuery("transport"))
        format =
            try request.singleQuery("format").map { text -> QRRenderInput.Format in
                guard let format = QRRenderInput.Format(rawValue: text) else {
                    throw RPCError.badRequest("format must be png or svg", reason: "invalid_format")
                }
                return format
            } ?? .png
        errorCorrection = try LabelQuery.errorCorrection(request.singleQuery("ec"))
        size =
            try request.singleQuery("size").map { text -> Int in
                guard let size = Int(text), QRRenderInput.moduleSizes.contains(size) else {
                    throw RPCError.badRequest("size must be from 1 to 64 pixels per module", reason: "invalid_module_size")
                }
                return size
            } ?? QRRenderInput.defaultModuleSize
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(
            path: ["device_name": name],
            query: [
                "transport": [transport.rawValue], "format": [format.rawValue], "ec": [errorCorrection.rawValue], "size": [String(size)],
            ]
        ).encode(to: encoder)
    }
}

/// `GET /admin/v1/device-labels?name=TWOMES-…&name=…&transport=ble&ec=M`, or `?unprinted=true` for every device whose
/// label has not been on a sheet yet: a printable page of labels.
///
/// The API checks `transport` and `ec` only once it knows the devices (an unknown device is a 404 whatever they say),
/// so they are read when the handler asks for them: ``transport()`` and ``errorCorrection()``.
public struct LabelSheetRequest: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public enum Devices: Sendable, Equatable {
        /// The devices named (none, when the query names none).
        case named([String])
        /// The devices whose label has not been printed yet.
        case unprinted
    }

    public var devices: Devices
    /// The values of `transport` and `ec`, as given.
    private var transportValues: [String]
    private var errorCorrectionValues: [String]

    public init(devices: Devices, transport: LabelTransport = .ble, errorCorrection: QRErrorCorrection = .M) {
        self.devices = devices
        transportValues = [transport.rawValue]
        errorCorrectionValues = [errorCorrection.rawValue]
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        let names = try request.query("name")
        switch try request.singleQuery("unprinted") {
        case nil, "false":
            devices = .named(names)
        case "true":
            guard names.isEmpty else { throw RPCError.badRequest("name devices or ask for the unprinted ones, not both", reason: "invalid_query") }
            devices = .unprinted
        default:
            throw RPCError.badRequest("unprinted must be true or false", reason: "invalid_query")
        }
        transportValues = try request.query("transport")
        errorCorrectionValues = try request.query("ec")
    }

    public func transport() throws -> LabelTransport {
        try LabelQuery.transport(QueryParameter.single(transportValues.isEmpty ? nil : transportValues, name: "transport"))
    }

    public func errorCorrection() throws -> QRErrorCorrection {
        try LabelQuery.errorCorrection(QueryParameter.single(errorCorrectionValues.isEmpty ? nil : errorCorrectionValues, name: "ec"))
    }

    public func encode(to encoder: any Encoder) throws {
        var query: [String: [String]] = [:]
        switch devices {
        case .named(let names): query["name"] = names.isEmpty ? nil : names
        case .unprinted: query["unprinted"] = ["true"]
        }
        query["transport"] = transportValues.isEmpty ? nil : transportValues
        query["ec"] = errorCorrectionValues.isEmpty ? nil : errorCorrectionValues
        try HTTPInput(query: query).encode(to: encoder)
    }
}
