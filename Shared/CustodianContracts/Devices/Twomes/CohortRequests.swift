import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation

/// `POST /admin/v1/accounts/cohort` (docs/admin.md, "Cohorts"): many accounts at once, all or none. The body is JSON,
/// `{"count": N}` or `{"accounts": [{"pseudonym"?, "location"?, "timezone"?}, …]}`, or with `Content-Type: text/csv` a
/// CSV whose header names any of `pseudonym,latitude,longitude,timezone`. Each account is checked as `POST /account`
/// checks its body (``CreateAccountRequest/problem``), and a problem names its item or line and its field.
public struct CohortRequest: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public static let sizes = 1...500
    public static let csvColumns = CreateAccountRequest.Field.allCases.map(\.rawValue)

    public var entries: [Entry]

    /// One account to create, and where it was given (for the error that names it).
    public struct Entry: Sendable, Equatable {
        public var account: CreateAccountRequest
        public var place: Place

        public init(account: CreateAccountRequest, place: Place) {
            self.account = account
            self.place = place
        }
    }

    /// Where an account was given: the `n`th (from 0) of a JSON list or count, or a CSV line (from 1).
    public enum Place: Sendable, Equatable {
        case item(Int)
        case line(Int)

        /// The admin API's 422 for `field` of the account given here.
        public func problem(_ field: String, _ message: String, type: String = "value_error") -> RPCError {
            switch self {
            case .item(let index):
                return RPCError.validation(
                    location: ["body", "accounts", String(index)] + field.split(separator: ".").map(String.init), message: message, type: type)
            case .line(let line):
                let location: [JSONValue] = ["body", .string("line \(line)")] + (field.isEmpty ? [] : [.string(field)])
                return RPCError(
                    .unprocessable, reason: "validation_failed", message: "line \(line)\(field.isEmpty ? "" : ", " + field): \(message)",
                    details: [["loc": .array(location), "msg": .string(message), "type": .string(type)]])
            }
        }
    }

    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// `count` accounts with the defaults of `POST /account`.
    public init(count: Int) {
        self.init(entries: (0..<count).map { Entry(account: CreateAccountRequest(), place: .item($0)) })
    }

    public init(accounts: [CreateAccountRequest]) {
        self.init(entries: accounts.enumerated().map { Entry(account: $1, place: .item($0)) })
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        // The route takes the body as text (`body: .text`): JSON or CSV, as its Content-Type says.
        guard case .string(let text) = try request.body(JSONValue.self) else {
            throw RPCError.validation(
                location: ["body"], message: "the body is missing: give JSON, or CSV with Content-Type: text/csv", type: "value_error.missing")
        }
        let mediaType = try request.header("content-type")?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        if mediaType == "text/csv" {
            entries = try CohortCSV.entries(text)
            return
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(Array(text.utf8), maximumDepth: 32)
        } catch {
            throw RPCError.badRequest("The request body is not valid JSON", reason: "malformed_body")
        }
        self = try JSONValueDecoder().decode(CohortJSON.self, from: json, codingPath: [RequestKey.body]).request
    }

    /// The JSON form, `{"accounts": […]}`, as a client sends it.
    public func encode(to encoder: any Encoder) throws {
        let accounts = entries.map { entry -> JSONValue in
            var account: [String: JSONValue] = [
                "location": ["latitude": .double(entry.account.location.latitude), "longitude": .double(entry.account.location.longitude)],
                "timezone": .string(entry.account.timezone),
            ]
            account["pseudonym"] = entry.account.pseudonym.map { .int(Int64($0)) }
            return .object(account)
        }
        let body = JSONValue.object(["accounts": .array(accounts)])
        try HTTPInput(body: .string(String(decoding: body.jsonBytes, as: UTF8.self)), headers: ["content-type": "application/json"]).encode(
            to: encoder)
    }
}

/// The JSON body of a cohort, read where it sits so that a problem's location is the member's (`accounts.2.location`).
struct CohortJSON: Decodable {
    var request: CohortRequest

    enum CodingKeys: String, CodingKey { case count, accounts }

    init(from decoder: any Decoder) throws {
        let body = try decoder.container(keyedBy: CodingKeys.self)
        let bodyPath = RequestDecoding.location(body.codingPath)
        switch (body.contains(.count), body.contains(.accounts)) {
        case (true, false):
            let count = try body.decode(Int.self, forKey: .count)
            guard CohortRequest.sizes.contains(count) else {
                throw RPCError.validation(location: bodyPath + ["count"], message: "a cohort has 1 to 500 accounts")
            }
            request = CohortRequest(count: count)
        case (false, true):
            var items = try body.nestedUnkeyedContainer(forKey: .accounts)
            guard let count = items.count, CohortRequest.sizes.contains(count) else {
                throw RPCError.validation(location: bodyPath + ["accounts"], message: "a cohort has 1 to 500 accounts")
            }
            var entries: [CohortRequest.Entry] = []
            while !items.isAtEnd {
                let index = items.currentIndex
                let members = try items.nestedObject(keyedBy: CreateAccountRequest.CodingKeys.self)
                entries.append(CohortRequest.Entry(account: try CreateAccountRequest(members: members), place: .item(index)))
            }
            request = CohortRequest(entries: entries)
        default:
            throw RPCError.validation(location: bodyPath, message: "give either count or accounts")
        }
        try CohortCSV.checkDistinctPseudonyms(request.entries)
    }
}

/// A cohort as CSV: a header naming any of ``CohortRequest/csvColumns`` in any order, then one account a line; an empty
/// cell takes `POST /account`'s default (a server-chosen pseudonym, Zwolle, Europe/Amsterdam).
enum CohortCSV {
    static func entries(_ text: String) throws -> [CohortRequest.Entry] {
        let records: [CSVRecords.Record]
        do {
            records = try CSVRecords.parse(text)
        } catch {
            throw CohortRequest.Place.line(error.line).problem("", error.message)
        }
        guard let header = records.first else {
            throw CohortRequest.Place.line(1).problem(
                "", "the CSV is empty: give a header naming any of \(CohortRequest.csvColumns.joined(separator: ","))")
        }
        var columns: [CreateAccountRequest.Field] = []
        for name in header.fields {
            let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
            guard let field = CreateAccountRequest.Field(rawValue: trimmed) else {
                throw CohortRequest.Place.line(header.line).problem(
                    "", "unknown column '\(trimmed.prefix(40))': the columns are \(CohortRequest.csvColumns.joined(separator: ","))")
            }
            guard !columns.contains(field) else { throw CohortRequest.Place.line(header.line).problem("", "column \(trimmed) is named twice") }
            columns.append(field)
        }
        if columns.contains(.latitude) != columns.contains(.longitude) {
            throw CohortRequest.Place.line(header.line).problem("", "latitude and longitude go together: give both columns or neither")
        }
        let rows = records.dropFirst()
        guard CohortRequest.sizes.contains(rows.count) else {
            throw CohortRequest.Place.line(header.line).problem("", "a cohort has 1 to 500 accounts; this CSV has \(rows.count)")
        }
        let entries = try rows.map { try entry($0, columns: columns) }
        try checkDistinctPseudonyms(entries)
        return entries
    }

    private static func entry(_ record: CSVRecords.Record, columns: [CreateAccountRequest.Field]) throws -> CohortRequest.Entry {
        let place = CohortRequest.Place.line(record.line)
        guard record.fields.count == columns.count else {
            throw place.problem(
                "", "expected \(columns.count) fields (\(columns.map(\.rawValue).joined(separator: ","))), found \(record.fields.count)")
        }
        var cells: [CreateAccountRequest.Field: String] = [:]
        for (field, value) in zip(columns, record.fields) {
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty { cells[field] = trimmed }
        }
        var account = CreateAccountRequest()
        if let text = cells[.pseudonym] {
            guard let pseudonym = Int(text) else { throw place.problem("pseudonym", "value is not a valid integer", type: "type_error.integer") }
            account.pseudonym = pseudonym
        }
        switch (cells[.latitude], cells[.longitude]) {
        case (nil, nil): break
        case (let latitude?, let longitude?):
            guard let latitude = Double(latitude) else { throw place.problem("latitude", "value is not a valid float", type: "type_error.float") }
            guard let longitude = Double(longitude) else { throw place.problem("longitude", "value is not a valid float", type: "type_error.float") }
            account.location = CreateAccountRequest.Location(latitude: latitude, longitude: longitude)
        case (nil, _): throw place.problem("latitude", "field required with longitude", type: "value_error.missing")
        case (_, nil): throw place.problem("longitude", "field required with latitude", type: "value_error.missing")
        }
        if let timezone = cells[.timezone] { account.timezone = timezone }
        if let problem = account.problem { throw place.problem(problem.field.rawValue, problem.message, type: problem.type) }
        return CohortRequest.Entry(account: account, place: place)
    }

    /// A pseudonym given twice would fail the second insert: said at once, naming the second.
    static func checkDistinctPseudonyms(_ entries: [CohortRequest.Entry]) throws {
        var seen: Set<Int> = []
        for entry in entries {
            guard let pseudonym = entry.account.pseudonym else { continue }
            guard seen.insert(pseudonym).inserted else {
                throw entry.place.problem("pseudonym", "pseudonym \(pseudonym) is given twice in this cohort")
            }
        }
    }
}

/// An account's activation as a researcher hands it to the household: the token, its link, and when both expire.
public struct IssuedActivation: Codable, Sendable, Equatable {
    public var pseudonym: Int
    public var activation_token: String
    public var firebase_url: String
    /// `YYYY-MM-DDTHH:MM:SS+00:00`.
    public var activation_expires_at: String

    public init(pseudonym: Int, activation_token: String, firebase_url: String, activation_expires_at: String) {
        self.pseudonym = pseudonym
        self.activation_token = activation_token
        self.firebase_url = firebase_url
        self.activation_expires_at = activation_expires_at
    }
}

extension IssuedActivation: RoutedJSON {}

/// The accounts a cohort created, in the order given.
public struct CohortAccounts: RoutedJSON, Equatable {
    public var accounts: [IssuedActivation]

    public init(accounts: [IssuedActivation]) {
        self.accounts = accounts
    }
}

/// The account an admin route's path names: `DELETE /admin/v1/accounts/{pseudonym}` (a Twomes participant's erasure,
/// docs/erasure.md), `POST /admin/v1/accounts/{pseudonym}/activation`.
public struct AccountByPseudonym: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var pseudonym: Int

    public init(pseudonym: Int) {
        self.pseudonym = pseudonym
    }

    public init(from decoder: any Decoder) throws {
        pseudonym = try RequestReader(decoder).pseudonymInPath()
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(path: ["pseudonym": String(pseudonym)]).encode(to: encoder)
    }
}
