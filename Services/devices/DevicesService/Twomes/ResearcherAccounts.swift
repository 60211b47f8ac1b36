import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianRuntime
import Foundation
import PostgresNIO

/// What a researcher sees of the participants: pseudonyms, devices and when they were last heard from.
/// No location, time zone or token: nothing that leads back to a person or a building.
struct ResearcherAccounts: Sendable {
    let database: Database

    struct Account: Encodable, Sendable {
        var pseudonym: Int
        var created_on: String
        @ExplicitNull var activated_on: String?
        var devices: [Device]
    }

    struct Device: Encodable, Sendable {
        var name: String
        var device_type: String
        @ExplicitNull var activated_on: String?
        @ExplicitNull var last_seen: String?
    }

    struct Page: Encodable, Sendable {
        var accounts: [Account]
        /// Pass as `after` for the next page; null on the last one.
        @ExplicitNull var next_after: Int?
    }

    func list(_ input: HTTPInput, context: CallContext) async throws -> Page {
        let after = try Self.integer(input.query["after"]?.first, name: "after", default: 0, range: 0...999_999)
        let limit = try Self.integer(input.query["limit"]?.first, name: "limit", default: 100, range: 1...1000)
        let rows = try await database.query(
            """
            WITH page AS (
                SELECT id, pseudonym, created_on, activated_on FROM devices.accounts
                WHERE pseudonym > \(after) ORDER BY pseudonym LIMIT \(limit))
            SELECT page.pseudonym, page.created_on, page.activated_on, d.name, t.name, d.activated_on,
                   (SELECT max(m.timestamp) FROM devices.measurements m WHERE m.device_id = d.id)
            FROM page
            LEFT JOIN devices.buildings b ON b.account_id = page.id
            LEFT JOIN devices.devices d ON d.building_id = b.id
            LEFT JOIN devices.device_types t ON t.id = d.device_type_id
            ORDER BY page.pseudonym, d.name
            """, logger: context.logger)
        var accounts: [Account] = []
        for try await (pseudonym, created, activated, device, type, deviceActivated, lastSeen) in rows.decode(
            (Int, Date, Date?, String?, String?, Date?, Date?).self)
        {
            if accounts.last?.pseudonym != pseudonym {
                accounts.append(Account(pseudonym: pseudonym, created_on: TwomesTime.render(created), activated_on: activated.map(TwomesTime.render), devices: []))
            }
            if let device, let type {
                accounts[accounts.count - 1].devices.append(Device(
                    name: device, device_type: type, activated_on: deviceActivated.map(TwomesTime.render), last_seen: lastSeen.map(TwomesTime.render)))
            }
        }
        return Page(accounts: accounts, next_after: accounts.count == limit ? accounts.last?.pseudonym : nil)
    }

    /// A device as the devices page lists it: registered, attached to an account or not, its label printed or not.
    struct RegisteredDevice: Encodable, Sendable {
        var name: String
        var device_type: String
        @ExplicitNull var pseudonym: Int?
        var created_on: String
        @ExplicitNull var activated_on: String?
        @ExplicitNull var last_seen: String?
        @ExplicitNull var label_printed_on: String?
    }

    struct DevicePage: Encodable, Sendable {
        var devices: [RegisteredDevice]
        /// Pass as `after` for the next page; null on the last one.
        @ExplicitNull var next_after: String?
    }

    /// `GET /admin/v1/devices?after=NAME&limit=100&label_printed=true|false`, by name.
    func devices(_ input: HTTPInput, context: CallContext) async throws -> DevicePage {
        let after = try input.singleQueryValue("after") ?? ""
        let limit = Int(try input.integerQueryValue("limit", default: 100, in: 1...1000))
        let printed: Bool? = switch try input.singleQueryValue("label_printed") {
        case nil: nil
        case "true": true
        case "false": false
        default: throw RPCError.badRequest("label_printed must be true or false", reason: "invalid_query")
        }
        let rows = try await database.query(
            """
            SELECT d.name, t.name, a.pseudonym, d.created_on, d.activated_on,
                   (SELECT max(m.timestamp) FROM devices.measurements m WHERE m.device_id = d.id), d.label_printed_on
            FROM devices.devices d
            JOIN devices.device_types t ON t.id = d.device_type_id
            LEFT JOIN devices.buildings b ON b.id = d.building_id
            LEFT JOIN devices.accounts a ON a.id = b.account_id
            WHERE d.name > \(after) AND (\(printed)::boolean IS NULL OR (d.label_printed_on IS NOT NULL) = \(printed))
            ORDER BY d.name LIMIT \(limit)
            """, logger: context.logger)
        var devices: [RegisteredDevice] = []
        for try await (name, type, pseudonym, created, activated, lastSeen, printedOn) in rows.decode(
            (String, String, Int?, Date, Date?, Date?, Date?).self)
        {
            devices.append(RegisteredDevice(
                name: name, device_type: type, pseudonym: pseudonym, created_on: TwomesTime.render(created),
                activated_on: activated.map(TwomesTime.render), last_seen: lastSeen.map(TwomesTime.render),
                label_printed_on: printedOn.map(TwomesTime.render)))
        }
        return DevicePage(devices: devices, next_after: devices.count == limit ? devices.last?.name : nil)
    }

    static func integer(_ text: String?, name: String, default defaultValue: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text else { return defaultValue }
        guard let value = Int(text), range.contains(value) else {
            throw RPCError.badRequest("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)", reason: "invalid_query")
        }
        return value
    }
}
