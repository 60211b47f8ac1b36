import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation

/// `GET /admin/v1/lemon/apps?after=DEVICE_ID&limit=100&include_synthetic=…`: the tracing app's registered instances by
/// device id, for the operator who erases one (and for the synthetic clean-up). Nothing of the phone: no key, push
/// token or app instance id.
public struct LemonAppsQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    /// The device id the previous page ended with; "" for the first page.
    public var after: String
    public var limit: Int
    public var synthetic: SyntheticFilter

    public init(after: String = "", limit: Int = 100, synthetic: SyntheticFilter = .exclude) {
        self.after = after
        self.limit = limit
        self.synthetic = synthetic
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        after = try request.singleQuery("after") ?? ""
        if !after.isEmpty { _ = try LemonAppByID.deviceID(after) }
        limit = Int(try request.integerQuery("limit", default: 100, in: 1...1000))
        synthetic = try SyntheticFilter(request)
    }

    public func encode(to encoder: any Encoder) throws {
        var query = ["after": [after], "limit": [String(limit)]]
        query["include_synthetic"] = synthetic.query
        try HTTPInput(query: query).encode(to: encoder)
    }
}

public struct LemonAppsPage: RoutedJSON, Equatable {
    public var apps: [App]
    /// Pass as `after` for the next page; null on the last one.
    @ExplicitNull public var next_after: String?

    public struct App: Codable, Sendable, Equatable {
        public var device_id: String
        public var operating_system: String
        public var registered_at: String
        @ExplicitNull public var deactivated_at: String?

        public init(device_id: String, operating_system: String, registered_at: String, deactivated_at: String?) {
            self.device_id = device_id
            self.operating_system = operating_system
            self.registered_at = registered_at
            self.deactivated_at = deactivated_at
        }
    }

    public init(apps: [App], next_after: String?) {
        self.apps = apps
        self.next_after = next_after
    }
}

/// `DELETE /admin/v1/lemon/apps/{device_id}`: an app instance's erasure, as the app's own `DELETE /api/v1/devices`
/// makes it (its submissions too).
public struct LemonAppByID: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    /// Lowercase, as the server hands device ids out.
    public var deviceID: String

    public init(deviceID: String) {
        self.deviceID = deviceID
    }

    public init(from decoder: any Decoder) throws {
        deviceID = try Self.deviceID(RequestReader(decoder).path("device_id"))
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(path: ["device_id": deviceID]).encode(to: encoder)
    }

    /// A device id as the server hands them out (a UUID), lowercase; anything else a 400.
    static func deviceID(_ text: String) throws -> String {
        guard let uuid = UUID(uuidString: text) else {
            throw RPCError.badRequest("device_id must be a UUID, as the app's handshake answered it", reason: "invalid_device_id")
        }
        return uuid.uuidString.lowercased()
    }
}
