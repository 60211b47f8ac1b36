import Foundation
import Testing

extension PlatformTests.Console {
    /// The Twomes study pages (docs/console.md, "Participants and devices"): a participant's and a device's page with
    /// their per-day charts, a re-issued link, silent devices, search and filters, and a cohort's printable sheet.
    @Suite("Console: Twomes study pages")
    struct TwomesPages {
        typealias Study = PlatformTests.TwomesStudy

        @Test func theParticipantAndDevicePagesChartTheirDaysWithGapsAndLinkEachOther() async throws {
            let platform = try platform
            let browser = Browser(platform)
            try await browser.logIn(platform.adminToken)
            let device = try await PlatformTests.TwomesProvisioning.provision()
            // Readings today and three days ago: the days between are gaps. Each day's readings lie within its first
            // minutes: counted back from now, they fell partly on the day before in the first hour after midnight UTC
            // (seen at 00:10, 26 gaps instead of 28).
            try Study.readings(
                device.deviceName,
                "SELECT (date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') + n * interval '10 seconds' FROM generate_series(0, 5) n")
            try Study.readings(
                device.deviceName,
                "SELECT (date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') - interval '3 days' + n * interval '10 seconds' FROM generate_series(0, 2) n"
            )
            let participant = try await browser.get("/console/twomes/accounts/\(device.pseudonym)")
            #expect(participant.status == 200)
            #expect(participant.text.contains("<h1>Participant \(device.pseudonym)</h1>") && participant.text.contains("activated "))
            #expect(participant.text.contains(#"<a class="device" href="/console/twomes/devices/\#(device.deviceName)">"#))
            #expect(participant.text.contains(#"<svg xmlns="http://www.w3.org/2000/svg" id="readings-chart""#))
            #expect(participant.text.components(separatedBy: #"<rect class="gap""#).count - 1 == 28, "30 days, 2 with readings")
            #expect(!participant.text.contains("reissue-activation"), "an activated account has no link to re-issue")

            let page = try await browser.get("/console/twomes/devices/\(device.deviceName)")
            #expect(page.status == 200)
            #expect(page.text.contains(#"<a class="participant" href="/console/twomes/accounts/\#(device.pseudonym)">"#))
            #expect(page.text.contains(#"<line class="expected""#) && page.text.contains("expected: 144 a day"))
            #expect(page.text.contains(#"<td class="number">6</td><td class="number">4%</td>"#), "today: 6 of 144")
            #expect(page.text.contains(#"<td class="number">3</td><td class="number">2%</td>"#), "three days ago: 3 of 144")
            #expect(page.text.contains("<td>heartbeat</td>"), "its latest value")

            // Hostile paths are the console's 4xx pages, never a 500. A free pseudonym is looked for now: other tests
            // enrol accounts (some with random pseudonyms) in the same platform meanwhile.
            let free = try platform.sql(
                "SELECT max(p) FROM generate_series(800000, 899999) p WHERE NOT EXISTS (SELECT 1 FROM devices.accounts WHERE pseudonym = p)")
            for path in [
                "/console/twomes/accounts/abc", "/console/twomes/accounts/99", "/console/twomes/accounts/\(free)", "/console/twomes/devices/%3Cb%3E",
            ] {
                let refused = try await browser.get(path)
                #expect(refused.status == 404 || refused.status == 400, "\(path): \(refused.status)")
                #expect(refused.text.contains(#"id="main""#) && !refused.text.contains("<b>"), "\(path)")
            }
        }

        @Test func anExpiredLinkIsReissuedFromTheParticipantsPage() async throws {
            let platform = try platform
            let browser = Browser(platform)
            try await browser.logIn(platform.adminToken)
            let accounts = try await browser.get("/console/twomes/accounts")
            let created = try await browser.post(
                "/console/twomes/accounts",
                [("csrf", accounts.csrf ?? ""), ("latitude", "52.1"), ("longitude", "5.1"), ("timezone", "Europe/London")])
            #expect(created.status == 201 && created.text.contains(#"id="activation-expires""#), "\(created.text)")
            let pseudonym = try #require(
                created.text.range(of: #"id="account-pseudonym">"#).map { String(created.text[$0.upperBound...].prefix { $0.isNumber }) })
            #expect(
                try platform.sql(
                    "SELECT b.tz_name FROM devices.buildings b JOIN devices.accounts a ON a.id = b.account_id WHERE a.pseudonym = \(pseudonym)")
                    == "Europe/London")
            _ = try platform.sql("UPDATE devices.accounts SET activation_expires_at = now() - interval '1 day' WHERE pseudonym = \(pseudonym)")
            let listed = try await browser.get("/console/twomes/accounts?q=\(pseudonym)&state=expired")
            #expect(listed.text.contains(#"<tr data-pseudonym="\#(pseudonym)">"#) && listed.text.contains("link expired"))
            let page = try await browser.get("/console/twomes/accounts/\(pseudonym)")
            #expect(page.text.contains("expired: the link expired") && page.text.contains(#"id="reissue-activation""#))
            let reissued = try await browser.post("/console/twomes/accounts/\(pseudonym)/activation", [("csrf", page.csrf ?? "")])
            #expect(reissued.status == 201 && reissued.text.contains(#"id="activation-qr" src="data:image/png;base64,"#))
            #expect(try await browser.get("/console/twomes/accounts/\(pseudonym)").text.contains("pending: the link works until"))
            // A bad field is shown on the form, which keeps what was typed.
            let refused = try await browser.post(
                "/console/twomes/accounts", [("csrf", accounts.csrf ?? ""), ("latitude", "north"), ("longitude", "5")])
            #expect(refused.status == 422 && refused.text.contains(#"id="error""#) && refused.text.contains(#"value="north""#))
        }

        @Test func silentDevicesAreListedAndTheListsSearchedAndFiltered() async throws {
            let platform = try platform
            let browser = Browser(platform)
            try await browser.logIn(platform.adminToken)
            let prefix = try Study.freeDevicePrefix()
            let quiet = try await PlatformTests.TwomesProvisioning.provision(name: prefix + "01")
            let talking = try await PlatformTests.TwomesProvisioning.provision(name: prefix + "02")
            try Study.readings(quiet.deviceName, "SELECT now() - interval '3 hours'")
            try Study.readings(talking.deviceName, "SELECT now() - interval '5 minutes'")
            let silent = try await browser.get("/console/twomes/silent?silent_for=2h&sort=name")
            #expect(silent.status == 200)
            #expect(silent.text.contains(#"<tr data-device="\#(quiet.deviceName)">"#) && !silent.text.contains(talking.deviceName))
            #expect(try await browser.get("/console/twomes/silent?silent_for=4h").text.contains(quiet.deviceName) == false)
            #expect(try await browser.get("/console/twomes/silent?silent_for=soon").status == 400)
            #expect(try await browser.get("/console").text.contains(#"href="/console/twomes/silent">Silent devices"#))

            let found = try await browser.get("/console/twomes/devices?q=\(prefix)&device_type=Generic-Test&state=attached")
            #expect(found.text.contains(quiet.deviceName) && found.text.contains(talking.deviceName))
            #expect(
                found.text.contains(#"id="devices-q" name="q" value="\#(prefix)""#) && found.text.contains(#"<option value="attached" selected>"#))
            #expect(!(try await browser.get("/console/twomes/devices?q=\(prefix)&state=registered")).text.contains(quiet.deviceName))
            #expect(try await browser.get("/console/twomes/devices?state=lost").status == 400)
            let byPseudonym = try await browser.get("/console/twomes/accounts?q=\(quiet.pseudonym)")
            #expect(
                byPseudonym.text.contains(#"<tr data-pseudonym="\#(quiet.pseudonym)">"#)
                    && !byPseudonym.text.contains("data-pseudonym=\"\(talking.pseudonym)\""))
            #expect(try await browser.get("/console/twomes/accounts?q=abc").status == 400)
        }

        @Test func aCohortGivesOneLetterPerHouseholdAndABadRowNamesTheFile() async throws {
            let platform = try platform
            let browser = Browser(platform)
            try await browser.logIn(platform.adminToken)
            let form = try await browser.get("/console/twomes/cohort")
            let sheet = try await browser.postMultipart("/console/twomes/cohort", [("csrf", form.csrf ?? ""), ("count", "12")])
            #expect(sheet.status == 201)
            #expect(sheet.text.components(separatedBy: #"<article class="letter""#).count - 1 == 12)
            #expect(sheet.text.components(separatedBy: #"<img class="letter-qr" src="data:image/png;base64,"#).count - 1 == 12)
            let prefix = try Study.freePrefix()
            let csv = "pseudonym,timezone\n\(prefix)1,Europe/Amsterdam\n\(prefix)2,Mars/Olympus\n"
            let refused = try await browser.postMultipart("/console/twomes/cohort", [("csrf", form.csrf ?? ""), ("count", ""), ("file", csv)])
            #expect(refused.status == 422 && refused.text.contains("figures.csv: ") && refused.text.contains("line 3"), "\(refused.text)")
            #expect(try platform.sql("SELECT count(*) FROM devices.accounts WHERE pseudonym = \(prefix)1") == "0", "all or nothing")
            #expect(try await browser.postMultipart("/console/twomes/cohort", [("csrf", form.csrf ?? ""), ("count", "501")]).status == 422)
        }
    }
}
