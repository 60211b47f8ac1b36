import CustodianHTTP
import CustodianRPC
import Foundation

/// `GET /admin/v1/measurements?pseudonym=…&device=…&property=…&from=…&to=…&format=csv|ndjson`: Twomes measurements
/// for researchers, by page (``StreamPage``).
public struct MeasurementExportQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var format: ResearcherExport.Format
    public var pseudonym: Int?
    public var device: String?
    public var property: String?
    public var from: Date?
    public var to: Date?
    public var synthetic: SyntheticFilter
    /// The service's own mark of where the previous page ended (nil: the first page).
    public var cursor: String?

    public init(
        format: ResearcherExport.Format = .csv, pseudonym: Int? = nil, device: String? = nil, property: String? = nil,
        from: Date? = nil, to: Date? = nil, synthetic: SyntheticFilter = .exclude, cursor: String? = nil
    ) {
        self.synthetic = synthetic
        self.format = format
        self.pseudonym = pseudonym
        self.device = device
        self.property = property
        self.from = from
        self.to = to
        self.cursor = cursor
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        format = try ResearcherExport.format(request.singleQuery("format"))
        pseudonym = try request.firstQuery("pseudonym").map { text -> Int in
            guard let value = Int(text) else { throw RPCError.badRequest("pseudonym must be a number", reason: "invalid_query") }
            return value
        }
        device = try request.firstQuery("device")
        property = try request.firstQuery("property")
        from = try DevicesExport.time(request, "from")
        to = try DevicesExport.time(request, "to")
        synthetic = try SyntheticFilter(request)
        cursor = try request.cursor
    }

    public func encode(to encoder: any Encoder) throws {
        var query: [String: [String]] = ["format": [format.rawValue]]
        query["include_synthetic"] = synthetic.query
        query["pseudonym"] = pseudonym.map { [String($0)] }
        query["device"] = device.map { [$0] }
        query["property"] = property.map { [$0] }
        query["from"] = from.map { [DevicesExport.text($0)] }
        query["to"] = to.map { [DevicesExport.text($0)] }
        try HTTPInput(query: query, cursor: cursor).encode(to: encoder)
    }
}

/// `GET /admin/v1/opensense/batches?device_id=…&probe=…&from=…&to=…&format=csv|ndjson`: OpenSense batches for
/// researchers, by page (``StreamPage``).
public struct OpenSenseExportQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var format: ResearcherExport.Format
    public var deviceID: String?
    public var probe: String?
    public var from: Date?
    public var to: Date?
    public var synthetic: SyntheticFilter
    /// The service's own mark of where the previous page ended (nil: the first page).
    public var cursor: String?

    public init(
        format: ResearcherExport.Format = .csv, deviceID: String? = nil, probe: String? = nil, from: Date? = nil, to: Date? = nil,
        synthetic: SyntheticFilter = .exclude, cursor: String? = nil
    ) {
        self.synthetic = synthetic
        self.format = format
        self.deviceID = deviceID
        self.probe = probe
        self.from = from
        self.to = to
        self.cursor = cursor
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        format = try ResearcherExport.format(request.singleQuery("format"))
        deviceID = try request.firstQuery("device_id")
        probe = try request.firstQuery("probe")
        from = try DevicesExport.time(request, "from")
        to = try DevicesExport.time(request, "to")
        synthetic = try SyntheticFilter(request)
        cursor = try request.cursor
    }

    public func encode(to encoder: any Encoder) throws {
        var query: [String: [String]] = ["format": [format.rawValue]]
        query["include_synthetic"] = synthetic.query
        query["device_id"] = deviceID.map { [$0] }
        query["probe"] = probe.map { [$0] }
        query["from"] = from.map { [DevicesExport.text($0)] }
        query["to"] = to.map { [DevicesExport.text($0)] }
        try HTTPInput(query: query, cursor: cursor).encode(to: encoder)
    }
}

/// The time bounds of the devices' exports (``ResearcherExport`` has the rest).
enum DevicesExport {
    /// A bound from the query (`from`, `to`): ISO 8601 with an offset, or unix seconds, as the Twomes API reads times.
    static func time(_ request: RequestReader, _ name: String) throws -> Date? {
        guard let typed = try request.firstQuery(name) else { return nil }
        let text = ResearcherExport.timeBound(typed)
        do {
            return try TwomesTime.parse(.string(text), at: ["query", name], requirePlausible: false)
        } catch {
            throw RPCError.badRequest("\(name) must be an ISO 8601 time with an offset, or unix seconds", reason: "invalid_query")
        }
    }

    static func text(_ time: Date) -> String {
        String(time.timeIntervalSince1970)
    }
}
