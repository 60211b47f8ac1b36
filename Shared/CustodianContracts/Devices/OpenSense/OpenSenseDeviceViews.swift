import CustodianHTTP
import CustodianJSON
import CustodianRPC

/// `GET /admin/v1/opensense/devices?q=PREFIX&limit=100&after=CURSOR`: the registered devices in registration order.
/// Without `limit` the whole list, as the route has always answered; with it, a page and the cursor of the next.
public struct OpenSenseDevicesQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    /// The start of the device ids wanted, as registered (case matters: ids are the apps' own).
    public var prefix: String?
    /// Where the previous page ended, as its `next_after` said.
    public var after: Cursor?
    /// Nil: every device.
    public var limit: Int?
    public var synthetic: SyntheticFilter

    /// A device's place in registration order: `<microseconds since 1970>-<row number>`, as `next_after` gives it.
    public struct Cursor: Sendable, Equatable {
        public var micros: Int64
        public var row: Int64

        public init(micros: Int64, row: Int64) {
            self.micros = micros
            self.row = row
        }

        init(_ text: String) throws {
            let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let micros = PageCursor.micros(parts[0]), let row = Int64(parts[1]), row > 0 else {
                throw RPCError.badRequest("after must be a next_after value of an earlier page", reason: "invalid_query")
            }
            self.init(micros: micros, row: row)
        }

        public var text: String { "\(micros)-\(row)" }
    }

    /// A device id has at most 128 characters (docs/opensense.md, "POST /register").
    public static let maximumPrefixLength = 128
    public static let limits: ClosedRange<Int64> = 1...1000

    public init(prefix: String? = nil, after: Cursor? = nil, limit: Int? = nil, synthetic: SyntheticFilter = .exclude) {
        self.prefix = prefix
        self.after = after
        self.limit = limit
        self.synthetic = synthetic
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        prefix = try request.searchPrefix(maximumLength: Self.maximumPrefixLength)
        after = try request.singleQuery("after").map(Cursor.init)
        limit = try request.singleQuery("limit") == nil ? nil : Int(request.integerQuery("limit", default: 100, in: Self.limits))
        synthetic = try SyntheticFilter(request)
    }

    public func encode(to encoder: any Encoder) throws {
        var query: [String: [String]] = [:]
        query["q"] = prefix.map { [$0] }
        query["after"] = after.map { [$0.text] }
        query["limit"] = limit.map { [String($0)] }
        query["include_synthetic"] = synthetic.query
        try HTTPInput(query: query).encode(to: encoder)
    }
}

public struct OpenSenseDeviceList: RoutedJSON, Equatable {
    public var devices: [Device]
    /// Pass as `after` for the next page; null on the last one, and when no `limit` was asked for.
    @ExplicitNull public var next_after: String?

    public struct Device: Codable, Sendable, Equatable {
        public var device_id: String
        public var registered_at: String
        public var uploads: Int
        public var batches: Int
        @ExplicitNull public var last_upload: String?

        public init(device_id: String, registered_at: String, uploads: Int, batches: Int, last_upload: String?) {
            self.device_id = device_id
            self.registered_at = registered_at
            self.uploads = uploads
            self.batches = batches
            self.last_upload = last_upload
        }
    }

    public init(devices: [Device], next_after: String? = nil) {
        self.devices = devices
        self.next_after = next_after
    }
}

/// `GET /admin/v1/opensense/devices/{device_id}?days=30`: one device and its batches per UTC day.
public struct OpenSenseDeviceDaysQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var deviceID: String
    /// The last this many UTC days, today included (``RecentDays``).
    public var days: Int

    public init(deviceID: String, days: Int = RecentDays.defaultCount) {
        self.deviceID = deviceID
        self.days = days
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        deviceID = try request.path("device_id")
        days = try RecentDays.count(request)
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(path: ["device_id": deviceID], query: ["days": [String(days)]]).encode(to: encoder)
    }
}

/// A device's page: its registration, its latest upload, and the batches recorded on each UTC day from `from` to
/// `to` (both included), by the time each batch was recorded on the phone. Days without batches are left out.
public struct OpenSenseDeviceDays: RoutedJSON, Equatable {
    public var device_id: String
    public var registered_at: String
    @ExplicitNull public var last_upload: String?
    /// `YYYY-MM-DD`.
    public var from: String
    public var to: String
    public var days: [Day]

    public struct Day: Codable, Sendable, Equatable {
        public var date: String
        public var batches: Int

        public init(date: String, batches: Int) {
            self.date = date
            self.batches = batches
        }
    }

    public init(device_id: String, registered_at: String, last_upload: String?, from: String, to: String, days: [Day]) {
        self.device_id = device_id
        self.registered_at = registered_at
        self.last_upload = last_upload
        self.from = from
        self.to = to
        self.days = days
    }
}
