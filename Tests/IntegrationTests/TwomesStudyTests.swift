import Foundation
import NIOHTTP1
import Testing

extension PlatformTests {
    /// The researchers' study routes (docs/admin.md, "Researcher routes", "Cohorts"): cohorts and re-issued links,
    /// search and filters, the participant's and the device's pages, silent devices and the `/metrics` gauges.
    @Suite("Twomes study: cohorts, search, pages, silent devices")
    struct TwomesStudy {
        /// A pseudonym prefix of five digits (ten pseudonyms) no account has yet.
        static func freePrefix() throws -> String {
            for _ in 0..<50 {
                let prefix = String(Int.random(in: 80_000...89_999))
                if try platform.sql("SELECT count(*) FROM devices.accounts WHERE pseudonym BETWEEN \(prefix)0 AND \(prefix)9") == "0" {
                    return prefix
                }
            }
            throw PlatformError("no free pseudonym prefix")
        }

        /// A device name prefix (`TWOMES-` and four hex digits: 256 names) no device has yet.
        static func freeDevicePrefix() throws -> String {
            for _ in 0..<50 {
                let prefix = "TWOMES-" + String(format: "%04X", Int.random(in: 0...0xFFFF))
                if try platform.sql("SELECT count(*) FROM devices.devices WHERE starts_with(name, '\(prefix)')") == "0" { return prefix }
            }
            throw PlatformError("no free device prefix")
        }

        static func cohort(_ body: String, csv: Bool = false, headers: [(String, String)] = []) async throws -> RunningPlatform.Reply {
            let platform = try platform
            if csv {
                return try await platform.request(
                    .POST, "/admin/v1/accounts/cohort", rawBody: Data(body.utf8), headers: [("Content-Type", "text/csv")] + headers,
                    admin: headers.isEmpty)
            }
            return try await platform.request(.POST, "/admin/v1/accounts/cohort", json: body, headers: headers, admin: headers.isEmpty)
        }

        static func accounts(_ reply: RunningPlatform.Reply) -> [[String: Any]] { reply.json?["accounts"] as? [[String: Any]] ?? [] }

        static func error(_ reply: RunningPlatform.Reply) -> String {
            "\(reply.status) \((reply.json?["error"] as? [String: Any])?["message"] as? String ?? reply.text)"
        }

        @Test func aCohortIsMadeFromACountJSONOrCSVAndAllOrNothing() async throws {
            let platform = try platform
            // By count: the defaults of POST /account, each with its own working link.
            let counted = try await Self.cohort(#"{"count": 3}"#)
            #expect(counted.status == 201, "\(counted.text)")
            let three = Self.accounts(counted)
            #expect(three.count == 3 && Set(three.compactMap { $0["pseudonym"] as? Int }).count == 3)
            #expect(Set(three[0].keys) == ["pseudonym", "activation_token", "firebase_url", "activation_expires_at"])
            let token = try #require(three[1]["activation_token"] as? String)
            #expect(try await platform.request(.POST, "/account/activate", json: #"{"activation_token":"\#(token)"}"#).status == 200)
            #expect((three[0]["firebase_url"] as? String)?.hasPrefix(try platform.baseURL + "/l/") == true)

            // By JSON: given pseudonyms, locations and time zones, stored as POST /account stores them.
            let prefix = try Self.freePrefix()
            let json = try await Self.cohort(
                #"{"accounts":[{"pseudonym":\#(prefix)1,"location":{"latitude":51.9876,"longitude":4.3333},"timezone":"Europe/London"},{"pseudonym":"\#(prefix)2"},{}]}"#
            )
            #expect(json.status == 201, "\(json.text)")
            #expect(Self.accounts(json).prefix(2).compactMap { $0["pseudonym"] as? Int } == [Int("\(prefix)1"), Int("\(prefix)2")])
            #expect(
                try platform.sql(
                    "SELECT b.latitude || ' ' || b.longitude || ' ' || b.tz_name FROM devices.accounts a JOIN devices.buildings b ON b.account_id = a.id WHERE a.pseudonym = \(prefix)1"
                ) == "51.99000 4.33000 Europe/London")

            // By CSV, RFC 4180: any order of columns, quoted fields (with a comma, a doubled quote would be one), CRLF.
            let csv = try await Self.cohort(
                "timezone,pseudonym,latitude,longitude\r\n\"Europe/Amsterdam\",\(prefix)3,\"52.1\",5.2\r\nAmerica/New_York,,,\r\n\n", csv: true)
            #expect(csv.status == 201, "\(csv.text)")
            let fromCSV = Self.accounts(csv)
            try #require(fromCSV.count == 2)
            #expect(fromCSV.first?["pseudonym"] as? Int == Int("\(prefix)3"))
            #expect(
                try platform.sql(
                    "SELECT b.tz_name FROM devices.accounts a JOIN devices.buildings b ON b.account_id = a.id WHERE a.activation_token_hash = sha256('\(fromCSV[1]["activation_token"] as? String ?? "")'::bytea)"
                ) == "America/New_York")

            // A bad row: 422 naming its line and field, and nothing of the cohort is stored.
            let bad = try await Self.cohort("pseudonym,latitude,longitude\n\(prefix)4,52,6\n\(prefix)5,95,6\n", csv: true)
            #expect(Self.error(bad) == "422 line 3, latitude: latitude must be between -90 and 90")
            #expect(try platform.sql("SELECT count(*) FROM devices.accounts WHERE pseudonym IN (\(prefix)4, \(prefix)5)") == "0")
            for (body, expected) in [
                ("pseudonym,latitude\n1,2\n", "422 line 1: latitude and longitude go together: give both columns or neither"),
                ("pseudonym,town\n\(prefix)4,Zwolle\n", "422 line 1: unknown column 'town': the columns are pseudonym,latitude,longitude,timezone"),
                ("pseudonym,timezone\n\(prefix)4,\"Europe/Amsterdam\n", "422 line 2: a quoted field is not closed"),
                ("pseudonym,timezone\n\(prefix)4,CET\n", "422 line 2, timezone: illegal time zone"),
                ("pseudonym\n\(prefix)4\n\(prefix)4\n", "422 line 3, pseudonym: pseudonym \(prefix)4 is given twice in this cohort"),
                ("pseudonym\n79999x\n", "422 line 2, pseudonym: value is not a valid integer"),
                ("pseudonym,timezone\n\(prefix)4\n", "422 line 2: expected 2 fields (pseudonym,timezone), found 1"),
                ("", "422 the body is missing: give JSON, or CSV with Content-Type: text/csv"),
            ] {
                #expect(Self.error(try await Self.cohort(body, csv: true)) == expected, "\(body)")
            }
            for (body, expected) in [
                (#"{"count": 0}"#, "422 count: a cohort has 1 to 500 accounts"),
                (#"{"count": 501}"#, "422 count: a cohort has 1 to 500 accounts"),
                (#"{"accounts": []}"#, "422 accounts: a cohort has 1 to 500 accounts"),
                (#"{"count": 2, "accounts": [{}]}"#, "422 give either count or accounts"),
                (
                    #"{"accounts":[{},{"location":{"latitude":91,"longitude":0}}]}"#,
                    "422 accounts.1.location.latitude: latitude must be between -90 and 90"
                ),
                (#"{"accounts":[{"pseudonym":700000}]}"#, "422 accounts.0.pseudonym: ensure this value is greater than or equal to 800000"),
                (#"{"accounts":[{"tz_name":"CET"}]}"#, "422 accounts.0.tz_name: illegal time zone"),
                (#"{"accounts":[1]}"#, "422 accounts.0: value is not a valid dict"),
                (#"{"count": "#, "400 The request body is not valid JSON"),
            ] {
                #expect(Self.error(try await Self.cohort(body)) == expected, "\(body)")
            }

            // A pseudonym in use fails the transaction: the others are not stored, and their minted links are revoked.
            let started = try platform.sql("SELECT now()")
            let taken = try await Self.cohort(#"{"accounts":[{"pseudonym":\#(prefix)6},{"pseudonym":\#(prefix)1}]}"#)
            #expect(Self.error(taken) == "422 accounts.1.pseudonym: pseudonym \(prefix)1 is already in use")
            #expect(try platform.sql("SELECT count(*) FROM devices.accounts WHERE pseudonym = \(prefix)6") == "0")
            let orphans = try platform.sql(
                """
                SELECT count(*) FROM links.short_links l WHERE l.created_at >= '\(started)' AND l.title = 'Activate your account'
                  AND NOT EXISTS (SELECT 1 FROM devices.accounts a WHERE a.link_code = l.code)
                """)
            #expect(orphans == "0", "the cohort's links were revoked")

            // Operators enrol; the audit log names every account the cohort made.
            let researcher = try await PlatformTests.AdminAudit.identity("researcher")
            #expect(Self.error(try await Self.cohort(#"{"count":1}"#, headers: PlatformTests.AdminAudit.bearer(researcher.token))).hasPrefix("403"))
            let audited = try await platform.request(.GET, "/admin/v1/audit?target=\(prefix)2&action=POST%20/admin/v1/accounts/cohort", admin: true)
            #expect((audited.json?["entries"] as? [[String: Any]])?.map { $0["phase"] as? String } == ["end"], "\(audited.text)")
        }

        @Test func aReissuedLinkReplacesTheOldTokenAndLink() async throws {
            let platform = try platform
            let created = try await platform.request(.POST, "/account", json: "{}", admin: true)
            let pseudonym = try #require(created.json?["pseudonym"] as? Int)
            let oldToken = try #require(created.json?["activation_token"] as? String)
            let oldCode = try #require((created.json?["firebase_url"] as? String)?.split(separator: "/").last)
            // An expired link is why a researcher re-issues one.
            _ = try platform.sql("UPDATE devices.accounts SET activation_expires_at = now() - interval '1 day' WHERE pseudonym = \(pseudonym)")
            let listed = try await platform.request(.GET, "/admin/v1/accounts?q=\(pseudonym)&state=expired", admin: true)
            #expect(Self.accounts(listed).map { $0["pseudonym"] as? Int } == [pseudonym])

            let reissued = try await platform.request(.POST, "/admin/v1/accounts/\(pseudonym)/activation", admin: true)
            #expect(reissued.status == 201, "\(reissued.text)")
            #expect(reissued.json?["pseudonym"] as? Int == pseudonym)
            let newToken = try #require(reissued.json?["activation_token"] as? String)
            #expect(newToken != oldToken)
            #expect(try platform.sql("SELECT count(*) FROM links.short_links WHERE code = '\(oldCode)'") == "0", "the old link is revoked")
            let newCode = try #require((reissued.json?["firebase_url"] as? String)?.split(separator: "/").last)
            #expect(try platform.sql("SELECT link_code FROM devices.accounts WHERE pseudonym = \(pseudonym)") == String(newCode))
            let pending = try await platform.request(.GET, "/admin/v1/accounts?q=\(pseudonym)&state=pending", admin: true)
            #expect(Self.accounts(pending).first?["activation_expires_at"] as? String == reissued.json?["activation_expires_at"] as? String)

            #expect(try await platform.request(.POST, "/account/activate", json: #"{"activation_token":"\#(oldToken)"}"#).status == 404)
            #expect(try await platform.request(.POST, "/account/activate", json: #"{"activation_token":"\#(newToken)"}"#).status == 200)
            let activated = try await platform.request(.GET, "/admin/v1/accounts?q=\(pseudonym)&state=activated", admin: true)
            #expect(Self.accounts(activated).first?["activation_expires_at"] is NSNull)

            #expect(
                Self.error(try await platform.request(.POST, "/admin/v1/accounts/\(pseudonym)/activation", admin: true))
                    == "409 Account \(pseudonym) is activated already")
            let unknown = try Self.freePrefix() + "0"
            #expect(
                Self.error(try await platform.request(.POST, "/admin/v1/accounts/\(unknown)/activation", admin: true))
                    == "404 Account \(unknown) not found")
            #expect(
                Self.error(try await platform.request(.POST, "/admin/v1/accounts/12/activation", admin: true))
                    == "400 pseudonym must be a whole number from 800000 to 899999")
            let audited = try await platform.request(
                .GET, "/admin/v1/audit?target=\(pseudonym)&action=POST%20/admin/v1/accounts/%7Bpseudonym%7D/activation", admin: true)
            #expect((audited.json?["entries"] as? [[String: Any]])?.count == 4, "\(audited.text)")
        }

        @Test func accountsAreFoundByPseudonymPrefixAndState() async throws {
            let platform = try platform
            let prefix = try Self.freePrefix()
            let made = try await Self.cohort(#"{"accounts":[{"pseudonym":\#(prefix)0},{"pseudonym":\#(prefix)1},{"pseudonym":\#(prefix)2}]}"#)
            #expect(made.status == 201, "\(made.text)")
            let token = try #require(Self.accounts(made)[2]["activation_token"] as? String)
            #expect(try await platform.request(.POST, "/account/activate", json: #"{"activation_token":"\#(token)"}"#).status == 200)
            _ = try platform.sql("UPDATE devices.accounts SET activation_expires_at = now() - interval '1 hour' WHERE pseudonym = \(prefix)1")
            func pseudonyms(_ query: String) async throws -> [Int] {
                let reply = try await platform.request(.GET, "/admin/v1/accounts?\(query)", admin: true)
                #expect(reply.status == 200, "\(reply.text)")
                return Self.accounts(reply).compactMap { $0["pseudonym"] as? Int }
            }
            let all = [Int("\(prefix)0")!, Int("\(prefix)1")!, Int("\(prefix)2")!]
            #expect(try await pseudonyms("q=\(prefix)") == all)
            #expect(try await pseudonyms("q=\(prefix)&state=pending") == [all[0]])
            #expect(try await pseudonyms("q=\(prefix)&state=expired") == [all[1]])
            #expect(try await pseudonyms("q=\(prefix)&state=activated") == [all[2]])
            #expect(try await pseudonyms("q=\(prefix)&limit=2&after=\(all[0])") == [all[1], all[2]])
            #expect(try await pseudonyms("q=\(prefix.prefix(4))&limit=1000").allSatisfy { String($0).hasPrefix(prefix.prefix(4)) })

            for (query, expected) in [
                ("q=81a", "400 q must be 1 to 6 digits of a pseudonym"),
                ("q=8123456", "400 q must be 1 to 6 digits of a pseudonym"),
                ("state=lost", "400 state must be one of pending, expired, activated"),
                ("state=pending&state=expired", "400 Give the query parameter 'state' once, not 2 times"),
            ] {
                #expect(Self.error(try await platform.request(.GET, "/admin/v1/accounts?\(query)", admin: true)) == expected)
            }
        }

        /// Readings of `property` for device `name`, stored as an upload would store them, at `times` (SQL expressions).
        static func readings(_ name: String, _ times: String, property: String = "heartbeat") throws {
            _ = try platform.sql(
                """
                WITH d AS (SELECT d.id, d.building_id, p.id AS property FROM devices.devices d
                           JOIN devices.properties p ON p.device_type_id = d.device_type_id AND p.name = '\(property)' WHERE d.name = '\(name)'),
                u AS (INSERT INTO devices.uploads (device_id, body_sha256, server_time, device_time, size, building_id)
                      SELECT d.id, sha256(gen_random_uuid()::text::bytea), now(), now(), 1, d.building_id FROM d RETURNING id)
                INSERT INTO devices.measurements (device_id, property_id, timestamp, value, upload_id, building_id)
                SELECT d.id, d.property, t, '1', (SELECT id FROM u), d.building_id FROM d, (\(times)) AS times(t)
                ON CONFLICT DO NOTHING
                """)
        }

        @Test func theParticipantsAndTheDevicesPagesCountReadingsPerDay() async throws {
            let platform = try platform
            let device = try await PlatformTests.TwomesProvisioning.provision(type: "OpenTherm-Monitor")
            // Today, 12 heartbeats; three days before the last month's last day none (a gap); the month's last day
            // and the next day, across the month boundary, 144 and 72; and a room temperature now.
            let today = "(now() AT TIME ZONE 'UTC')::date"
            let monthEnd = "(date_trunc('month', now() AT TIME ZONE 'UTC') - interval '1 day')::date"
            try Self.readings(
                device.deviceName, "SELECT \(today)::timestamp AT TIME ZONE 'UTC' + n * interval '600 seconds' FROM generate_series(0, 11) n")
            try Self.readings(
                device.deviceName, "SELECT \(monthEnd)::timestamp AT TIME ZONE 'UTC' + n * interval '600 seconds' FROM generate_series(0, 215) n")
            try Self.readings(
                device.deviceName,
                "SELECT \(monthEnd)::timestamp AT TIME ZONE 'UTC' - interval '3 days' + n * interval '600 seconds' FROM generate_series(0, 1) n")
            try Self.readings(device.deviceName, "SELECT now() - interval '1 minute'", property: "roomTemp")
            let dates = try platform.sql(
                "SELECT to_char(\(today), 'YYYY-MM-DD') || ' ' || to_char(\(monthEnd), 'YYYY-MM-DD') || ' ' || to_char(\(monthEnd) + 1, 'YYYY-MM-DD') || ' ' || to_char(\(monthEnd) - 3, 'YYYY-MM-DD') || ' ' || to_char(\(today) - 59, 'YYYY-MM-DD')"
            ).split(separator: " ").map(String.init)
            let (todayText, endText, nextText, gapText, fromText) = (dates[0], dates[1], dates[2], dates[3], dates[4])

            let account = try await platform.request(.GET, "/admin/v1/accounts/\(device.pseudonym)?days=60", admin: true)
            #expect(account.status == 200, "\(account.text)")
            #expect(account.json?["from"] as? String == fromText && account.json?["to"] as? String == todayText)
            #expect(account.json?["activation_state"] as? String == "activated" && account.json?["activation_expires_at"] is NSNull)
            #expect((account.json?["devices"] as? [[String: Any]])?.first?["name"] as? String == device.deviceName)
            let days = (account.json?["days"] as? [[String: Any]] ?? []).map { "\($0["date"] ?? "") \($0["property"] ?? "") \($0["count"] ?? "")" }
            var expected = [
                "\(gapText) heartbeat 2", "\(endText) heartbeat 144", "\(nextText) heartbeat 72", "\(todayText) heartbeat 12",
                "\(todayText) roomTemp 1",
            ]
            if nextText == todayText {
                expected = ["\(gapText) heartbeat 2", "\(endText) heartbeat 144", "\(todayText) heartbeat 84", "\(todayText) roomTemp 1"]
            }
            #expect(days == expected, "\(days)")
            let week = try await platform.request(.GET, "/admin/v1/accounts/\(device.pseudonym)?days=1", admin: true)
            #expect((week.json?["days"] as? [[String: Any]])?.allSatisfy { $0["date"] as? String == todayText } == true)

            let page = try await platform.request(.GET, "/admin/v1/devices/\(device.deviceName)?days=60", admin: true)
            #expect(page.status == 200, "\(page.text)")
            #expect(page.json?["expected_heartbeats_per_day"] as? Int == 144 && page.json?["pseudonym"] as? Int == device.pseudonym)
            let beats = (page.json?["days"] as? [[String: Any]] ?? []).map {
                "\($0["date"] ?? "") \($0["heartbeats"] ?? "") \($0["completeness"] ?? "")"
            }
            if nextText != todayText {
                #expect(beats.prefix(3) == ["\(gapText) 2 0.01", "\(endText) 144 1", "\(nextText) 72 0.5"], "\(beats)")
            }
            #expect(beats.last?.hasPrefix("\(todayText) ") == true)
            let attachments = page.json?["attachments"] as? [[String: Any]] ?? []
            #expect(
                attachments.count == 1 && attachments.first?["pseudonym"] as? Int == device.pseudonym && attachments.first?["uploads"] as? Int == 4)
            let latest = (page.json?["latest"] as? [[String: Any]] ?? []).map { "\($0["property"] ?? "") \($0["unit"] ?? "")" }
            #expect(latest == ["heartbeat <null>", "roomTemp °C"], "\(latest)")

            // Detached, it keeps its history: the account it was attached to, by pseudonym.
            #expect(try await platform.request(.POST, "/admin/v1/devices/\(device.deviceName)/detach", admin: true).status == 200)
            let detached = try await platform.request(.GET, "/admin/v1/devices/\(device.deviceName)", admin: true)
            #expect(detached.json?["pseudonym"] is NSNull)
            #expect((detached.json?["attachments"] as? [[String: Any]])?.map { $0["pseudonym"] as? Int } == [device.pseudonym])

            for (path, expected) in [
                ("/admin/v1/devices/\(device.deviceName)?days=0", "400 days must be a whole number from 1 to 366"),
                ("/admin/v1/devices/\(device.deviceName)?days=367", "400 days must be a whole number from 1 to 366"),
                ("/admin/v1/accounts/\(device.pseudonym)?days=x", "400 days must be a whole number from 1 to 366"),
                ("/admin/v1/devices/TWOMES-NOPE00", "404 Device TWOMES-NOPE00 not found"),
                ("/admin/v1/accounts/abc", "400 pseudonym must be a whole number from 800000 to 899999"),
            ] {
                #expect(Self.error(try await platform.request(.GET, path, admin: true)) == expected, "\(path)")
            }
        }

        @Test func devicesAreFilteredSortedAndTheSilentOnesListed() async throws {
            let platform = try platform
            let prefix = try Self.freeDevicePrefix()
            // Three attached devices: one reporting, one silent for three hours, one that never sent anything; one
            // registered only; one detached.
            var names: [String] = []
            for index in 0..<5 {
                let name = prefix + String(format: "%02X", index)
                names.append(name)
                if index == 3 {
                    let created = try await platform.request(
                        .POST, "/device", json: #"{"name":"\#(name)","device_type":"Generic-Test"}"#, admin: true)
                    #expect(created.status == 200, "\(created.text)")
                    continue
                }
                _ = try await PlatformTests.TwomesProvisioning.provision(type: index == 1 ? "CO2-meter-SCD4x" : "Generic-Test", name: name)
            }
            try Self.readings(names[0], "SELECT now() - n * interval '600 seconds' FROM generate_series(0, 71) n")
            try Self.readings(names[1], "SELECT now() - interval '3 hours' - n * interval '600 seconds' FROM generate_series(0, 5) n")
            try Self.readings(names[4], "SELECT now() - interval '1 day'")
            #expect(try await platform.request(.POST, "/admin/v1/devices/\(names[4])/detach", admin: true).status == 200)

            func list(_ query: String) async throws -> (names: [String], next: Any?, devices: [[String: Any]]) {
                let reply = try await platform.request(.GET, "/admin/v1/devices?q=\(prefix)&\(query)", admin: true)
                #expect(reply.status == 200, "\(query): \(reply.text)")
                let devices = reply.json?["devices"] as? [[String: Any]] ?? []
                return (devices.compactMap { $0["name"] as? String }, reply.json?["next_after"], devices)
            }
            let all = try await list("")
            #expect(all.names == names)
            #expect(all.devices[0]["heartbeats_24h"] as? Int == 72 && all.devices[0]["completeness_24h"] as? Double == 0.5)
            #expect(all.devices[1]["heartbeats_24h"] as? Int == 6 && all.devices[1]["completeness_24h"] as? Double == 0.04)
            #expect(all.devices[2]["heartbeats_24h"] as? Int == 0 && all.devices[2]["completeness_24h"] as? Double == 0)
            #expect(try await list("state=registered").names == [names[3]])
            #expect(try await list("state=attached").names == Array(names[0..<3]))
            #expect(try await list("state=detached").names == [names[4]])
            #expect(try await list("device_type=CO2-meter-SCD4x").names == [names[1]])
            let one = try await platform.request(.GET, "/admin/v1/devices?q=\(names[2])", admin: true)
            #expect((one.json?["devices"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == [names[2]], "q narrows the prefix")
            #expect(try await list("limit=2&after=\(names[0])").names == [names[1], names[2]])

            // Silent for two hours: the attached devices without a reading since, never-seen first, then oldest first.
            #expect(try await list("silent_for=2h").names == [names[2], names[1]])
            #expect(try await list("silent_for=4h").names == [names[2]])
            #expect(try await list("silent_for=120m&sort=last_seen").names == [names[2], names[1]])
            // Paging by last reading: the cursor carries it.
            let first = try await list("sort=last_seen&limit=2")
            #expect(first.names == [names[2], names[3]], "never seen first, by name")
            let cursor = try #require(first.next as? String)
            let second = try await list("sort=last_seen&limit=2&after=\(cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
            #expect(second.names == [names[4], names[1]], "\(second)")

            // Backdated readings make a reporting device silent, without waiting.
            _ = try platform.sql(
                "UPDATE devices.measurements SET timestamp = timestamp - interval '12 hours' WHERE device_id = (SELECT id FROM devices.devices WHERE name = '\(names[0])')"
            )
            #expect(try await list("silent_for=2h").names == [names[2], names[0], names[1]])

            for (query, expected) in [
                ("silent_for=2x", "400 silent_for must be a whole number of minutes, hours or days (90m, 2h, 1d), from 1m to 366d"),
                ("silent_for=0h", "400 silent_for must be a whole number of minutes, hours or days (90m, 2h, 1d), from 1m to 366d"),
                ("silent_for=367d", "400 silent_for must be a whole number of minutes, hours or days (90m, 2h, 1d), from 1m to 366d"),
                ("silent_for=2h&sort=name", "400 silent_for lists the oldest reading first: leave sort out or give sort=last_seen"),
                ("sort=age", "400 sort must be one of name, last_seen"),
                ("state=lost", "400 state must be one of registered, attached, detached"),
                ("q=TWOMES_%27", "400 q must be the first 1 to 64 letters, digits or '-' of a device name"),
                ("device_type=a%20b", "400 device_type must be a device type name (1 to 64 letters, digits, '.', '_' or '-')"),
                ("sort=last_seen&after=TWOMES-000000", "400 after must be the next_after of the previous page when sorting by last_seen"),
                // A time no reading has (2^63 − 1 µs would overflow PostgreSQL's interval arithmetic).
                (
                    "sort=last_seen&after=9223372036854775807~TWOMES-000000",
                    "400 after must be the next_after of the previous page when sorting by last_seen"
                ),
                ("sort=last_seen&after=-1~TWOMES-000000", "400 after must be the next_after of the previous page when sorting by last_seen"),
            ] {
                #expect(Self.error(try await platform.request(.GET, "/admin/v1/devices?\(query)", admin: true)) == expected, "\(query)")
            }
        }

        @Test func metricsCountTheDevicesReportingAndSilent() async throws {
            let platform = try platform
            // Other tests attach, detach and erase devices meanwhile: the gauges must equal the same count taken from the
            // database just before and just after, at least once in ten tries.
            let counted = """
                SELECT count(*) FILTER (WHERE reported) || ' ' || count(*) FILTER (WHERE NOT reported) FROM (
                    SELECT EXISTS (SELECT 1 FROM devices.measurements m WHERE m.device_id = d.id AND m.timestamp >= now() - interval '2 hours') AS reported
                    FROM devices.devices d WHERE d.building_id IS NOT NULL AND d.activated_on IS NOT NULL AND NOT d.synthetic) AS a
                """
            _ = try await PlatformTests.TwomesProvisioning.provision(name: try Self.freeDevicePrefix() + "00")
            var seen: [String] = []
            for _ in 0..<10 {
                let before = try platform.sql(counted)
                let metrics = try await platform.request(.GET, "/metrics")
                let after = try platform.sql(counted)
                func gauge(_ name: String) -> String? {
                    metrics.text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.map { String($0.dropFirst(name.count + 1)) }
                }
                #expect(metrics.text.contains("# TYPE custodian_twomes_devices_silent gauge"))
                let served = "\(gauge("custodian_twomes_devices_reporting") ?? "-") \(gauge("custodian_twomes_devices_silent") ?? "-")"
                seen.append("\(served) (database \(before), \(after))")
                if before == after, served == before {
                    #expect(Int(served.split(separator: " ")[1]) ?? 0 >= 1, "the device just attached is silent")
                    return
                }
            }
            Issue.record("the gauges never matched the database's counts: \(seen)")
        }
    }
}
