import CustodianContracts
import CustodianRPC
import CustodianRuntime
import Foundation
import Logging
import PostgresNIO

/// What a researcher sees of the participants: pseudonyms, devices and when they were last heard from.
/// No location, time zone or token: nothing that leads back to a person or a building.
struct ResearcherAccounts: Sendable {
    let database: Database

    /// An account's activation state, from its row `a` (the one place it is worked out).
    static let stateSQL = """
        CASE WHEN a.activated_on IS NOT NULL THEN 'activated'
             WHEN a.activation_expires_at <= now() THEN 'expired' ELSE 'pending' END
        """

    func list(_ query: AccountsQuery, context: CallContext) async throws -> AccountsPage {
        let accounts = try await accounts(query, logger: context.logger).map(\.account)
        return AccountsPage(accounts: accounts, next_after: accounts.count == query.limit ? accounts.last?.pseudonym : nil)
    }

    /// A page of accounts by pseudonym, each with its devices and state: a range of the pseudonyms' unique index.
    private func accounts(_ query: AccountsQuery, logger: Logger) async throws -> [(account: AccountsPage.Account, state: String)] {
        let after = query.after, limit = query.limit, synthetic = query.synthetic.wanted, state = query.state?.rawValue
        let low = query.pseudonyms.lowerBound, high = query.pseudonyms.upperBound
        let rows = try await database.query(
            """
            WITH page AS (
                SELECT a.id, a.pseudonym, a.created_on, a.activated_on, a.activation_expires_at,
                       \(unescaped: Self.stateSQL) AS state
                FROM devices.accounts a
                WHERE a.pseudonym > \(after) AND a.pseudonym BETWEEN \(low) AND \(high)
                  AND (\(synthetic)::boolean IS NULL OR a.synthetic = \(synthetic))
                  AND (\(state)::text IS NULL OR \(unescaped: Self.stateSQL) = \(state))
                ORDER BY a.pseudonym LIMIT \(limit))
            SELECT page.pseudonym, page.created_on, page.activated_on, page.activation_expires_at, page.state, d.name, t.name,
                   d.activated_on, (SELECT max(m.timestamp) FROM devices.measurements m WHERE m.device_id = d.id)
            FROM page
            LEFT JOIN devices.buildings b ON b.account_id = page.id
            LEFT JOIN devices.devices d ON d.building_id = b.id
            LEFT JOIN devices.device_types t ON t.id = d.device_type_id
            ORDER BY page.pseudonym, d.name
            """, logger: logger)
        var accounts: [(account: AccountsPage.Account, state: String)] = []
        for try await (pseudonym, created, activated, expires, state, device, type, deviceActivated, lastSeen) in rows.decode(
            (Int, Date, Date?, Date?, String, String?, String?, Date?, Date?).self)
        {
            if accounts.last?.account.pseudonym != pseudonym {
                let account = AccountsPage.Account(
                    pseudonym: pseudonym, created_on: TwomesTime.render(created), activated_on: activated.map(TwomesTime.render),
                    activation_expires_at: activated == nil ? expires.map(TwomesTime.render) : nil, devices: [])
                accounts.append((account, state))
            }
            if let device, let type {
                accounts[accounts.count - 1].account.devices.append(
                    AccountsPage.Device(
                        name: device, device_type: type, activated_on: deviceActivated.map(TwomesTime.render),
                        last_seen: lastSeen.map(TwomesTime.render)))
            }
        }
        return accounts
    }

    /// `GET /admin/v1/accounts/{pseudonym}`: the account as the list shows it, and its readings a day per property over
    /// the window. Readings belong to the account they were taken for (their `building_id`), whichever device took them;
    /// the devices that ever uploaded for it are found by one probe each of `uploads_by_device_building`, and each
    /// one's readings by its range of `measurements_by_device_time` in the window's partitions.
    func detail(_ query: AccountDetailQuery, context: CallContext) async throws -> AccountDetail {
        let logger = context.logger
        let page = AccountsQuery(after: query.pseudonym - 1, limit: 1, synthetic: .include, q: String(query.pseudonym))
        guard let (account, state) = try await accounts(page, logger: logger).first else {
            throw RPCError.notFound("Account \(query.pseudonym) not found", reason: "account_not_found")
        }
        let window = try await DayWindow.last(query.days, database: database, logger: logger)
        let pseudonym = query.pseudonym, from = window.start, to = window.end
        // The devices first, so that the planner knows how few they are (estimated inside one statement, they seemed
        // many enough to compile the statement with JIT, which took longer than running it).
        let taken = try await database.query(
            """
            WITH building AS (
                SELECT b.id FROM devices.accounts a JOIN devices.buildings b ON b.account_id = a.id WHERE a.pseudonym = \(pseudonym))
            SELECT (SELECT id FROM building), d.id FROM devices.devices d
            WHERE d.building_id = (SELECT id FROM building)
               OR EXISTS (SELECT 1 FROM devices.uploads u WHERE u.device_id = d.id AND u.building_id = (SELECT id FROM building))
            """, logger: logger)
        var building: Int64?
        var devices: [Int64] = []
        for try await (buildingID, device) in taken.decode((Int64?, Int64).self) {
            building = buildingID
            devices.append(device)
        }
        let rows = try await database.query(
            """
            SELECT to_char((m.timestamp AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD'), p.name, count(*)
            FROM devices.measurements m JOIN devices.properties p ON p.id = m.property_id
            WHERE m.device_id = ANY(\(devices)) AND m.building_id = \(building)
              AND m.timestamp >= \(from) AND m.timestamp < \(to)
            GROUP BY 1, 2 ORDER BY 1, 2
            """, logger: logger)
        var days: [AccountDetail.Day] = []
        for try await (date, property, count) in rows.decode((String, String, Int).self) {
            days.append(AccountDetail.Day(date: date, property: property, count: count))
        }
        return AccountDetail(
            pseudonym: account.pseudonym, created_on: account.created_on, activated_on: account.activated_on,
            activation_expires_at: account.activation_expires_at, activation_state: state, devices: account.devices,
            from: window.first, to: window.last, days: days)
    }
}

/// The last N UTC days, today included: `first` to `last` as dates, `start` to `end` as the times that bound them (end
/// is tomorrow's midnight). Bound as values, so that the planner prunes the months outside the window.
struct DayWindow {
    var first: String
    var last: String
    var start: Date
    var end: Date
    /// Seconds since today's midnight (UTC).
    var intoToday: Double

    static func last(_ days: Int, database: Database, logger: Logger) async throws -> DayWindow {
        let rows = try await database.query(
            """
            WITH today AS (SELECT (now() AT TIME ZONE 'UTC')::date AS day)
            SELECT to_char(day - \(Int32(days - 1)), 'YYYY-MM-DD'), to_char(day, 'YYYY-MM-DD'),
                   (day - \(Int32(days - 1)))::timestamp AT TIME ZONE 'UTC', (day + 1)::timestamp AT TIME ZONE 'UTC',
                   extract(epoch FROM now() - day::timestamp AT TIME ZONE 'UTC')::float8
            FROM today
            """, logger: logger)
        for try await (first, last, start, end, intoToday) in rows.decode((String, String, Date, Date, Double).self) {
            return DayWindow(first: first, last: last, start: start, end: end, intoToday: intoToday)
        }
        throw RPCError.internal("no day window")
    }
}
