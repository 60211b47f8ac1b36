import CustodianHTTP
import CustodianJSON
import CustodianRPC

/// `GET /admin/v1/accounts?after=PSEUDONYM&limit=100&q=8123&state=pending`: what a researcher sees of the participants,
/// by pseudonym. No location, time zone or token: nothing that leads back to a person or a building.
public struct AccountsQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var after: Int
    public var limit: Int
    public var synthetic: SyntheticFilter
    /// A pseudonym's first digits: `8123` is 812300…812399, a range of the pseudonyms' unique index.
    public var q: String?
    public var state: AccountState?

    public init(after: Int = 0, limit: Int = 100, synthetic: SyntheticFilter = .exclude, q: String? = nil, state: AccountState? = nil) {
        self.after = after
        self.limit = limit
        self.synthetic = synthetic
        self.q = q
        self.state = state
    }

    /// The pseudonyms `q` stands for (all of them without one).
    public var pseudonyms: ClosedRange<Int> {
        guard let q, let prefix = Int(q) else { return CreateAccountRequest.pseudonymRange }
        var scale = 1
        for _ in q.count..<6 { scale *= 10 }
        return prefix * scale...(prefix + 1) * scale - 1
    }

    /// A repeated parameter's first value counts here, as it always has.
    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        after = try QueryParameter.integer(request.firstQuery("after"), name: "after", default: 0, in: 0...999_999)
        limit = try QueryParameter.integer(request.firstQuery("limit"), name: "limit", default: 100, in: 1...1000)
        synthetic = try SyntheticFilter(request)
        q = try request.prefixQuery("q", maximumLength: 6, allowed: { $0.isASCII && $0.isNumber }, describe: "1 to 6 digits of a pseudonym")
        state = try request.wordQuery("state", AccountState.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var query = ["after": [String(after)], "limit": [String(limit)]]
        query["include_synthetic"] = synthetic.query
        query["q"] = q.map { [$0] }
        query["state"] = state.map { [$0.rawValue] }
        try HTTPInput(query: query).encode(to: encoder)
    }
}

public struct AccountsPage: RoutedJSON, Equatable {
    public var accounts: [Account]
    /// Pass as `after` for the next page; null on the last one.
    @ExplicitNull public var next_after: Int?

    public struct Account: Codable, Sendable, Equatable {
        public var pseudonym: Int
        public var created_on: String
        @ExplicitNull public var activated_on: String?
        /// When the activation link stops working; null once the account is activated.
        @ExplicitNull public var activation_expires_at: String?
        public var devices: [Device]

        public init(pseudonym: Int, created_on: String, activated_on: String?, activation_expires_at: String?, devices: [Device]) {
            self.pseudonym = pseudonym
            self.created_on = created_on
            self.activated_on = activated_on
            self.activation_expires_at = activation_expires_at
            self.devices = devices
        }
    }

    public struct Device: Codable, Sendable, Equatable {
        public var name: String
        public var device_type: String
        @ExplicitNull public var activated_on: String?
        @ExplicitNull public var last_seen: String?

        public init(name: String, device_type: String, activated_on: String?, last_seen: String?) {
            self.name = name
            self.device_type = device_type
            self.activated_on = activated_on
            self.last_seen = last_seen
        }
    }

    public init(accounts: [Account], next_after: Int?) {
        self.accounts = accounts
        self.next_after = next_after
    }
}

/// `GET /admin/v1/devices?after=NAME&limit=100&label_printed=true|false&q=TWOMES-A&device_type=…&state=attached&sort=name`,
/// by name; with `silent_for=2h` the activated, attached devices with no reading for that long, oldest reading first.
public struct DevicesQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var after: String
    public var limit: Int
    /// Only the devices whose label was (or was not) printed; nil: all.
    public var labelPrinted: Bool?
    public var synthetic: SyntheticFilter
    /// A device name's first characters.
    public var q: String?
    public var deviceType: String?
    public var state: DeviceState?
    /// Only activated, attached devices whose last reading is older than this many seconds (or that never sent one).
    public var silentFor: Int?
    /// ``DeviceOrder/last_seen`` whenever `silentFor` is given.
    public var sort: DeviceOrder

    public init(
        after: String = "", limit: Int = 100, labelPrinted: Bool? = nil, synthetic: SyntheticFilter = .exclude, q: String? = nil,
        deviceType: String? = nil, state: DeviceState? = nil, silentFor: Int? = nil, sort: DeviceOrder = .name
    ) {
        self.after = after
        self.limit = limit
        self.labelPrinted = labelPrinted
        self.synthetic = synthetic
        self.q = q
        self.deviceType = deviceType
        self.state = state
        self.silentFor = silentFor
        self.sort = silentFor == nil ? sort : .last_seen
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        after = try request.singleQuery("after") ?? ""
        limit = Int(try request.integerQuery("limit", default: 100, in: 1...1000))
        labelPrinted = try request.booleanQuery("label_printed")
        synthetic = try SyntheticFilter(request)
        q = try request.prefixQuery(
            "q", maximumLength: 64, allowed: { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") },
            describe: "the first 1 to 64 letters, digits or '-' of a device name")
        deviceType = try request.prefixQuery(
            "device_type", maximumLength: 64, allowed: { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) },
            describe: "a device type name (1 to 64 letters, digits, '.', '_' or '-')")
        state = try request.wordQuery("state", DeviceState.self)
        silentFor = try request.silentForQuery()
        let order = try request.wordQuery("sort", DeviceOrder.self)
        if silentFor != nil, order == .name {
            throw RPCError.badRequest("silent_for lists the oldest reading first: leave sort out or give sort=last_seen", reason: "invalid_query")
        }
        sort = silentFor == nil ? order ?? .name : .last_seen
        if sort == .last_seen, !after.isEmpty, LastSeenCursor(after) == nil {
            throw RPCError.badRequest("after must be the next_after of the previous page when sorting by last_seen", reason: "invalid_query")
        }
    }

    /// Where the previous page ordered by last reading ended; nil on the first page or when ordered by name.
    public var lastSeenCursor: LastSeenCursor? { sort == .last_seen ? LastSeenCursor(after) : nil }

    public func encode(to encoder: any Encoder) throws {
        var query = ["after": [after], "limit": [String(limit)]]
        query["label_printed"] = labelPrinted.map { [String($0)] }
        query["include_synthetic"] = synthetic.query
        query["q"] = q.map { [$0] }
        query["device_type"] = deviceType.map { [$0] }
        query["state"] = state.map { [$0.rawValue] }
        query["silent_for"] = silentFor.map { [SilentDuration.text($0)] }
        query["sort"] = silentFor == nil && sort != .name ? [sort.rawValue] : nil
        try HTTPInput(query: query).encode(to: encoder)
    }
}

public struct DevicesPage: RoutedJSON, Equatable {
    public var devices: [Device]
    /// Pass as `after` for the next page; null on the last one.
    @ExplicitNull public var next_after: String?

    /// A device as the devices page lists it: registered, attached to an account or not, its label printed or not.
    public struct Device: Codable, Sendable, Equatable {
        public var name: String
        public var device_type: String
        @ExplicitNull public var pseudonym: Int?
        public var created_on: String
        @ExplicitNull public var activated_on: String?
        @ExplicitNull public var last_seen: String?
        @ExplicitNull public var label_printed_on: String?
        /// Heartbeat readings in the last 24 hours; null when the device's type has no `heartbeat` property.
        @ExplicitNull public var heartbeats_24h: Int?
        /// `heartbeats_24h` / 144, two decimals; null likewise.
        @ExplicitNull public var completeness_24h: Double?

        public init(
            name: String, device_type: String, pseudonym: Int?, created_on: String, activated_on: String?, last_seen: String?,
            label_printed_on: String?, heartbeats_24h: Int?
        ) {
            self.name = name
            self.device_type = device_type
            self.pseudonym = pseudonym
            self.created_on = created_on
            self.activated_on = activated_on
            self.last_seen = last_seen
            self.label_printed_on = label_printed_on
            self.heartbeats_24h = heartbeats_24h
            self.completeness_24h = heartbeats_24h.map { Heartbeats.completeness($0, of: Heartbeats.expectedPerDay) }
        }
    }

    public init(devices: [Device], next_after: String?) {
        self.devices = devices
        self.next_after = next_after
    }
}

/// The heartbeat every Twomes device sends (docs/twomes.md, "Provisioning steps", E9b): one measured every 600 s.
public enum Heartbeats {
    public static let property = DeviceTypeDefinition.heartbeat
    public static let intervalSeconds = 600
    public static let expectedPerDay = 86400 / intervalSeconds

    /// `received` of `expected`, two decimals (received may exceed expected: a device that measures too often).
    public static func completeness(_ received: Int, of expected: Int) -> Double {
        expected > 0 ? (Double(received) / Double(expected) * 100).rounded() / 100 : 0
    }
}
