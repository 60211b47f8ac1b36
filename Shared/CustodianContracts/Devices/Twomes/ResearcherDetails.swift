import CustodianHTTP
import CustodianJSON
import CustodianRPC

/// `GET /admin/v1/accounts/{pseudonym}?days=30`: a participant's page. Days are UTC dates (`YYYY-MM-DD`), the last `days`
/// of them including today (`from` to `to`); a day without readings of a property is absent from `days`.
public struct AccountDetailQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var pseudonym: Int
    public var days: Int

    public init(pseudonym: Int, days: Int = 30) {
        self.pseudonym = pseudonym
        self.days = days
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        pseudonym = try request.pseudonymInPath()
        days = try RecentDays.count(request)
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(path: ["pseudonym": String(pseudonym)], query: ["days": [String(days)]]).encode(to: encoder)
    }
}

public struct AccountDetail: RoutedJSON, Equatable {
    public var pseudonym: Int
    public var created_on: String
    @ExplicitNull public var activated_on: String?
    /// Null once activated.
    @ExplicitNull public var activation_expires_at: String?
    /// `pending`, `expired` or `activated` (``AccountState``).
    public var activation_state: String
    public var devices: [AccountsPage.Device]
    public var from: String
    public var to: String
    /// Readings a day per property, by date then property.
    public var days: [Day]

    public struct Day: Codable, Sendable, Equatable {
        public var date: String
        public var property: String
        public var count: Int

        public init(date: String, property: String, count: Int) {
            self.date = date
            self.property = property
            self.count = count
        }
    }

    public init(
        pseudonym: Int, created_on: String, activated_on: String?, activation_expires_at: String?, activation_state: String,
        devices: [AccountsPage.Device], from: String, to: String, days: [Day]
    ) {
        self.pseudonym = pseudonym
        self.created_on = created_on
        self.activated_on = activated_on
        self.activation_expires_at = activation_expires_at
        self.activation_state = activation_state
        self.devices = devices
        self.from = from
        self.to = to
        self.days = days
    }
}

/// `GET /admin/v1/devices/{device_name}?days=30`: a device's page.
public struct DeviceDetailQuery: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var name: String
    public var days: Int

    public init(name: String, days: Int = 30) {
        self.name = name
        self.days = days
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        name = try request.path("device_name")
        days = try RecentDays.count(request)
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(path: ["device_name": name], query: ["days": [String(days)]]).encode(to: encoder)
    }
}

public struct DeviceDetail: RoutedJSON, Equatable {
    public var name: String
    public var device_type: String
    /// The account it is attached to now.
    @ExplicitNull public var pseudonym: Int?
    public var created_on: String
    @ExplicitNull public var activated_on: String?
    @ExplicitNull public var last_seen: String?
    @ExplicitNull public var label_printed_on: String?
    public var expected_heartbeats_per_day: Int
    /// The accounts it uploaded for, first upload first; the current one too when it has not uploaded yet.
    public var attachments: [Attachment]
    public var from: String
    public var to: String
    /// Heartbeats a day; a day without any is absent. Today's completeness is against the heartbeats expected so far.
    public var days: [Day]
    /// The newest reading of each property of its type that it ever sent.
    public var latest: [Reading]

    public struct Attachment: Codable, Sendable, Equatable {
        /// Null when the account was erased.
        @ExplicitNull public var pseudonym: Int?
        @ExplicitNull public var first_upload: String?
        @ExplicitNull public var last_upload: String?
        public var uploads: Int

        public init(pseudonym: Int?, first_upload: String?, last_upload: String?, uploads: Int) {
            self.pseudonym = pseudonym
            self.first_upload = first_upload
            self.last_upload = last_upload
            self.uploads = uploads
        }
    }

    public struct Day: Codable, Sendable, Equatable {
        public var date: String
        public var heartbeats: Int
        public var completeness: Double

        public init(date: String, heartbeats: Int, completeness: Double) {
            self.date = date
            self.heartbeats = heartbeats
            self.completeness = completeness
        }
    }

    public struct Reading: Codable, Sendable, Equatable {
        public var property: String
        @ExplicitNull public var unit: String?
        public var value: String
        public var timestamp: String

        public init(property: String, unit: String?, value: String, timestamp: String) {
            self.property = property
            self.unit = unit
            self.value = value
            self.timestamp = timestamp
        }
    }

    public init(
        name: String, device_type: String, pseudonym: Int?, created_on: String, activated_on: String?, last_seen: String?,
        label_printed_on: String?, attachments: [Attachment], from: String, to: String, days: [Day], latest: [Reading]
    ) {
        self.name = name
        self.device_type = device_type
        self.pseudonym = pseudonym
        self.created_on = created_on
        self.activated_on = activated_on
        self.last_seen = last_seen
        self.label_printed_on = label_printed_on
        self.expected_heartbeats_per_day = Heartbeats.expectedPerDay
        self.attachments = attachments
        self.from = from
        self.to = to
        self.days = days
        self.latest = latest
    }
}

/// The Twomes figures of the gateway's `/metrics`: activated, attached devices, by whether they sent a reading in the
/// last `silentAfterSeconds` (`CUSTODIAN_SILENT_AFTER`, 2 hours by default).
public struct TwomesActivity: Codable, Sendable, Equatable {
    public var reporting: Int
    public var silent: Int
    public var silentAfterSeconds: Int

    public init(reporting: Int, silent: Int, silentAfterSeconds: Int) {
        self.reporting = reporting
        self.silent = silent
        self.silentAfterSeconds = silentAfterSeconds
    }
}
