import CustodianHTTP
import CustodianJSON
import CustodianRPC

/// `GET /admin/v1/accounts?after=PSEUDONYM&limit=100`: what a researcher sees of the participants, by pseudonym. No
/// location, time zone or token: nothing that leads back to a person or a building.
public struct AccountsQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var after: Int
    public var limit: Int
    public var synthetic: SyntheticFilter

    public init(after: Int = 0, limit: Int = 100, synthetic: SyntheticFilter = .exclude) {
        self.after = after
        self.limit = limit
        self.synthetic = synthetic
    }

    /// A repeated parameter's first value counts here, as it always has.
    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        after = try QueryParameter.integer(request.firstQuery("after"), name: "after", default: 0, in: 0...999_999)
        limit = try QueryParameter.integer(request.firstQuery("limit"), name: "limit", default: 100, in: 1...1000)
        synthetic = try SyntheticFilter(request)
    }

    public func encode(to encoder: any Encoder) throws {
        var query = ["after": [String(after)], "limit": [String(limit)]]
        query["include_synthetic"] = synthetic.query
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
        public var devices: [Device]

        public init(pseudonym: Int, created_on: String, activated_on: String?, devices: [Device]) {
            self.pseudonym = pseudonym
            self.created_on = created_on
            self.activated_on = activated_on
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

/// `GET /admin/v1/devices?after=NAME&limit=100&label_printed=true|false`, by name.
public struct DevicesQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var after: String
    public var limit: Int
    /// Only the devices whose label was (or was not) printed; nil: all.
    public var labelPrinted: Bool?
    public var synthetic: SyntheticFilter

    public init(after: String = "", limit: Int = 100, labelPrinted: Bool? = nil, synthetic: SyntheticFilter = .exclude) {
        self.after = after
        self.limit = limit
        self.labelPrinted = labelPrinted
        self.synthetic = synthetic
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        after = try request.singleQuery("after") ?? ""
        limit = Int(try request.integerQuery("limit", default: 100, in: 1...1000))
        labelPrinted = try request.booleanQuery("label_printed")
        synthetic = try SyntheticFilter(request)
    }

    public func encode(to encoder: any Encoder) throws {
        var query = ["after": [after], "limit": [String(limit)]]
        query["label_printed"] = labelPrinted.map { [String($0)] }
        query["include_synthetic"] = synthetic.query
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

        public init(
            name: String, device_type: String, pseudonym: Int?, created_on: String, activated_on: String?, last_seen: String?,
            label_printed_on: String?
        ) {
            self.name = name
            self.device_type = device_type
            self.pseudonym = pseudonym
            self.created_on = created_on
            self.activated_on = activated_on
            self.last_seen = last_seen
            self.label_printed_on = label_printed_on
        }
    }

    public init(devices: [Device], next_after: String?) {
        self.devices = devices
        self.next_after = next_after
    }
}
