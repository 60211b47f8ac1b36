import CustodianHTTP
import CustodianRPC

/// The filters of the researchers' Twomes lists (docs/admin.md, "Researcher routes"): each read from its query
/// parameter, each bad value a 400 `invalid_query` that names the values it may take.

/// Where an account's activation stands.
public enum AccountState: String, Sendable, Equatable, CaseIterable {
    /// Not activated; its link is still valid.
    case pending
    /// Not activated; its link expired (re-issue it).
    case expired
    case activated
}

/// Where a device stands.
public enum DeviceState: String, Sendable, Equatable, CaseIterable {
    /// Registered, never attached to an account.
    case registered
    /// Attached to an account.
    case attached
    /// Attached once, detached since.
    case detached
}

/// How a device list is ordered.
public enum DeviceOrder: String, Sendable, Equatable, CaseIterable {
    case name
    /// Oldest reading first, devices that never sent one before all.
    case last_seen
}

extension RequestReader {
    /// A query parameter that takes one of `T`'s words; nil when absent (or empty, as a form sends a field left blank).
    public func wordQuery<T: RawRepresentable & CaseIterable>(_ name: String, _ type: T.Type) throws -> T? where T.RawValue == String {
        guard let text = try singleQuery(name), !text.isEmpty else { return nil }
        guard let value = T(rawValue: text) else {
            throw RPCError.badRequest("\(name) must be one of \(T.allCases.map(\.rawValue).joined(separator: ", "))", reason: "invalid_query")
        }
        return value
    }

    /// A non-empty query parameter of at most `maximumLength` characters from `allowed`; nil when absent or empty.
    func prefixQuery(_ name: String, maximumLength: Int, allowed: (Character) -> Bool, describe: String) throws -> String? {
        guard let text = try singleQuery(name), !text.isEmpty else { return nil }
        guard text.count <= maximumLength, text.allSatisfy(allowed) else {
            throw RPCError.badRequest("\(name) must be \(describe)", reason: "invalid_query")
        }
        return text
    }
}

/// `silent_for`: a duration of whole minutes, hours or days (`90m`, `2h`, `1d`), from 1 minute to 366 days.
public enum SilentDuration {
    public static let maximumSeconds = 366 * 86400

    public static func seconds(_ text: String) -> Int? {
        let digits = text.dropLast()
        guard let unit = text.last, !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(digits), number > 0 else {
            return nil
        }
        let scale: Int
        switch unit {
        case "m": scale = 60
        case "h": scale = 3600
        case "d": scale = 86400
        default: return nil
        }
        guard number <= maximumSeconds / scale else { return nil }
        return number * scale
    }

    /// `seconds` written back the way it is read (`7200` → `2h`).
    public static func text(_ seconds: Int) -> String {
        if seconds % 86400 == 0 { return "\(seconds / 86400)d" }
        if seconds % 3600 == 0 { return "\(seconds / 3600)h" }
        return "\(seconds / 60)m"
    }
}

extension RequestReader {
    /// `silent_for` in seconds; nil when absent or empty.
    public func silentForQuery() throws -> Int? {
        guard let text = try singleQuery("silent_for"), !text.isEmpty else { return nil }
        guard let seconds = SilentDuration.seconds(text) else {
            throw RPCError.badRequest(
                "silent_for must be a whole number of minutes, hours or days (90m, 2h, 1d), from 1m to 366d", reason: "invalid_query")
        }
        return seconds
    }
}

/// Where a page of devices ordered by last reading ended: the last one's reading (Unix microseconds, nil when it never
/// sent one) and name. Written `<microseconds>~<name>` or `never~<name>` in `next_after`, and read back from `after`.
public struct LastSeenCursor: Sendable, Equatable {
    public var lastSeenMicros: Int64?
    public var name: String

    public init(lastSeenMicros: Int64?, name: String) {
        self.lastSeenMicros = lastSeenMicros
        self.name = name
    }

    public init?(_ text: String) {
        let parts = text.split(separator: "~", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[1].isEmpty else { return nil }
        if parts[0] == "never" {
            lastSeenMicros = nil
        } else if let micros = PageCursor.micros(parts[0]) {
            lastSeenMicros = micros
        } else {
            return nil
        }
        name = String(parts[1])
    }

    public var text: String { "\(lastSeenMicros.map(String.init) ?? "never")~\(name)" }
}
