import CustodianContracts
import CustodianRPC
import CustodianRuntime
import Foundation
import PostgresNIO

/// What a researcher sees of the participants: pseudonyms, devices and when they were last heard from.
/// No location, time zone or token: nothing that leads back to a person or a building.
struct ResearcherAccounts: Sendable {
    let database: Database

    func list(_ query: AccountsQuery, context: CallContext) async throws -> AccountsPage {
        let after = query.after, limit = query.limit, synthetic = query.synthetic.wanted
        let rows = try await database.query(
            """
            WITH page AS (
                SELECT id, pseudonym, created_on, activated_on FROM devices.accounts
                WHERE pseudonym > \(after) AND (\(synthetic)::boolean IS NULL OR synthetic = \(synthetic))
                ORDER BY pseudonym LIMIT \(limit))
            SELECT page.pseudonym, page.created_on, page.activated_on, d.name, t.name, d.activated_on,
                   (SELECT max(m.timestamp) FROM devices.measurements m WHERE m.device_id = d.id)
            FROM page
            LEFT JOIN devices.buildings b ON b.account_id = page.id
            LEFT JOIN devices.devices d ON d.building_id = b.id
            LEFT JOIN devices.device_types t ON t.id = d.device_type_id
            ORDER BY page.pseudonym, d.name
            """, logger: context.logger)
        var accounts: [AccountsPage.Account] = []
        for try await (pseudonym, created, activated, device, type, deviceActivated, lastSeen) in rows.decode(
            (Int, Date, Date?, String?, String?, Date?, Date?).self)
        {
            if accounts.last?.pseudonym != pseudonym {
                accounts.append(
                    AccountsPage.Account(
                        pseudonym: pseudonym, created_on: TwomesTime.render(created), activated_on: activated.map(TwomesTime.render), devices: []))
            }
            if let device, let type {
                accounts[accounts.count - 1].devices.append(
                    AccountsPage.Device(
                        name: device, device_type: type, activated_on: deviceActivated.map(TwomesTime.render),
                        last_seen: lastSeen.map(TwomesTime.render)))
            }
        }
        return AccountsPage(accounts: accounts, next_after: accounts.count == limit ? accounts.last?.pseudonym : nil)
    }

    /// `GET /admin/v1/devices?after=NAME&limit=100&label_printed=true|false`, by name.
    func devices(_ query: DevicesQuery, context: CallContext) async throws -> DevicesPage {
        let after = query.after, limit = query.limit, printed = query.labelPrinted, synthetic = query.synthetic.wanted
        let rows = try await database.query(
            """
            SELECT d.name, t.name, a.pseudonym, d.created_on, d.activated_on,
                   (SELECT max(m.timestamp) FROM devices.measurements m WHERE m.device_id = d.id), d.label_printed_on
            FROM devices.devices d
            JOIN devices.device_types t ON t.id = d.device_type_id
            LEFT JOIN devices.buildings b ON b.id = d.building_id
            LEFT JOIN devices.accounts a ON a.id = b.account_id
            WHERE d.name > \(after) AND (\(printed)::boolean IS NULL OR (d.label_printed_on IS NOT NULL) = \(printed))
              AND (\(synthetic)::boolean IS NULL OR d.synthetic = \(synthetic))
            ORDER BY d.name LIMIT \(limit)
            """, logger: context.logger)
        var devices: [DevicesPage.Device] = []
        for try await (name, type, pseudonym, created, activated, lastSeen, printedOn) in rows.decode(
            (String, String, Int?, Date, Date?, Date?, Date?).self)
        {
            devices.append(
                DevicesPage.Device(
                    name: name, device_type: type, pseudonym: pseudonym, created_on: TwomesTime.render(created),
                    activated_on: activated.map(TwomesTime.render), last_seen: lastSeen.map(TwomesTime.render),
                    label_printed_on: printedOn.map(TwomesTime.render)))
        }
        return DevicesPage(devices: devices, next_after: devices.count == limit ? devices.last?.name : nil)
    }
}
