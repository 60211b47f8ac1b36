import Foundation
import NIOHTTP1
import Testing

extension PlatformTests {
    /// Phases A–E, as the researcher, the WarmteWachter app and the device firmware go through them; the step labels
    /// below (C7, D5, E9, …) are those of docs/twomes.md, "Provisioning steps".
    @Suite("Twomes provisioning, phases A to E")
    struct TwomesProvisioning {
        /// A device name no other test uses.
        static func deviceName() -> String {
            "TWOMES-" + String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(6)).uppercased()
        }

        struct Provisioned {
            var pseudonym: Int
            var accountSession: String
            var deviceName: String
            var deviceToken: String
        }

        /// Phases A–D: an account, activated in the app, and a prepared device attached to it.
        static func provision(type: String = "Generic-Test", name: String = deviceName()) async throws -> Provisioned {
            let platform = try platform
            let account = try await platform.request(.POST, "/account", json: "{}", admin: true)
            let activationToken = try #require(account.json?["activation_token"] as? String)
            let session = try #require(
                try await platform.request(.POST, "/account/activate", json: #"{"activation_token":"\#(activationToken)"}"#).json?["session_token"]
                    as? String)
            let deviceToken = String(UInt64.random(in: 100_000_000...999_999_999))
            let created = try await platform.request(
                .POST, "/device", json: #"{"name":"\#(name)","device_type":"\#(type)","activation_token":"\#(deviceToken)"}"#, admin: true)
            #expect(created.status == 200, "\(created.text)")
            let attached = try await platform.request(
                .POST, "/account/device/activate", json: #"{"activation_token":"\#(deviceToken)"}"#, headers: [("Authorization", "Bearer \(session)")]
            )
            #expect(attached.status == 200, "\(attached.text)")
            return Provisioned(
                pseudonym: try #require(account.json?["pseudonym"] as? Int), accountSession: session, deviceName: name, deviceToken: deviceToken)
        }

        @Test func theWholeFlowFromAccountToFirstHeartbeat() async throws {
            let platform = try platform
            // A: the researcher creates the account; C: the app activates it.
            let account = try await platform.request(.POST, "/account", json: "{}", admin: true)
            let activationToken = try #require(account.json?["activation_token"] as? String)
            let session = try #require(
                try await platform.request(.POST, "/account/activate", json: #"{"activation_token":"\#(activationToken)"}"#).json?["session_token"]
                    as? String)
            let app = [("Authorization", "Bearer \(session)")]

            // B: the researcher registers the prepared device.
            let name = Self.deviceName()
            let created = try await platform.request(
                .POST, "/device", json: #"{"name":"\#(name)","device_type":"Generic-Test","activation_token":"810667973"}"#, admin: true)
            #expect(created.status == 200, "\(created.text)")
            #expect(created.json?["name"] as? String == name)
            #expect(created.json?["activated_on"] is NSNull)
            #expect(
                (created.json?["device_type"] as? [String: String]) == [
                    "name": "Generic-Test", "display_name": "Generic Test",
                    "installation_manual_url": "https://energietransitiewindesheim.nl/manuals/Generic-Test/",
                ])

            // D2: the app looks up the scanned device's type, before it is attached.
            let type = try await platform.request(.GET, "/device_type/\(name)", headers: app)
            #expect(type.status == 200, "\(type.text)")
            #expect(type.json?["installation_manual_url"] as? String == "https://energietransitiewindesheim.nl/manuals/Generic-Test/")
            // C7: using the session token ended the account activation token.
            #expect(try await platform.request(.POST, "/account/activate", json: #"{"activation_token":"\#(activationToken)"}"#).status == 404)

            // D5: the app attaches the device; doing it again from the same account changes nothing.
            let attached = try await platform.request(.POST, "/account/device/activate", json: #"{"activation_token":"810667973"}"#, headers: app)
            #expect(attached.status == 200, "\(attached.text)")
            let activatedOn = try #require(attached.json?["activated_on"] as? String)
            #expect(activatedOn.hasSuffix("+00:00"))
            let again = try await platform.request(.POST, "/account/device/activate", json: #"{"activation_token":"810667973"}"#, headers: app)
            #expect(again.status == 200)
            #expect(again.json?["activated_on"] as? String == activatedOn)

            // E4: the app polls; no measurement yet.
            let before = try await platform.request(.GET, "/device/\(name)", headers: app)
            #expect(before.status == 200)
            #expect(before.json?["latest_measurement_timestamp"] is NSNull)

            // E6–E8: the device activates itself and uploads its first heartbeat.
            let deviceSession = try #require(
                try await platform.request(.POST, "/device/activate", json: #"{"activation_token":"810667973"}"#).json?["session_token"] as? String)
            let heartbeat =
                #"{"upload_time":"1622237550","property_measurements":[{"property_name":"heartbeat","measurements":[{"timestamp":"1622237550","value":"1"}]}]}"#
            let uploaded = try await platform.request(
                .POST, "/device/measurements/variable-interval", json: heartbeat, headers: [("Authorization", "Bearer \(deviceSession)")])
            #expect(uploaded.status == 200, "\(uploaded.text)")
            #expect(uploaded.json?["size"] as? Int == 1)
            #expect((uploaded.json?["server_time"] as? String)?.hasSuffix("+00:00") == true)

            // E10: the app sees the first measurement.
            let after = try await platform.request(.GET, "/device/\(name)", headers: app)
            #expect(after.json?["latest_measurement_timestamp"] as? String == "2021-05-28T21:32:30+00:00")
        }

        @Test func deviceRegistrationErrors() async throws {
            let platform = try platform
            let name = Self.deviceName()
            let token = "token-\(UUID().uuidString)"
            #expect(
                try await platform.request(
                    .POST, "/device", json: #"{"name":"\#(name)","device_type":"Generic-Test","activation_token":"\#(token)"}"#, admin: true
                ).status == 200)
            let cases: [(String, Int, String)] = [
                (
                    #"{"name":"\#(name)","device_type":"Generic-Test","activation_token":"another-token"}"#, 400,
                    #"{"detail":"Device name already in use"}"#
                ),
                (
                    #"{"name":"\#(Self.deviceName())","device_type":"Toaster","activation_token":"another-token"}"#, 400,
                    #"{"detail":"Unknown device type \"Toaster\""}"#
                ),
                (
                    #"{"name":"\#(Self.deviceName())","device_type":"Generic-Test","activation_token":"\#(token)"}"#, 400,
                    #"{"detail":"Activation token already in use"}"#
                ),
                (
                    #"{"name":"SENSOR-1","device_type":"Generic-Test","activation_token":"another-token"}"#, 422,
                    #"{"detail":[{"loc":["body","name"],"msg":"string does not match regex \"TWOMES-[0-9a-fA-F]{6}\"","type":"value_error.str.regex"}]}"#
                ),
                (
                    #"{"name":"\#(Self.deviceName())","device_type":"Generic-Test","activation_token":" short "}"#, 422,
                    #"{"detail":[{"loc":["body","activation_token"],"msg":"ensure this value has at least 8 characters","type":"value_error.any_str.min_length"}]}"#
                ),
                (
                    #"{"name":"\#(Self.deviceName())","device_type":"Generic-Test","activation_token":"1234567"}"#, 422,
                    #"{"detail":[{"loc":["body","activation_token"],"msg":"ensure this value has at least 8 characters","type":"value_error.any_str.min_length"}]}"#
                ),
                (
                    #"{"device_type":"Generic-Test"}"#, 422,
                    #"{"detail":[{"loc":["body","name"],"msg":"field required","type":"value_error.missing"}]}"#
                ),
                // A pattern's end is the string's end, not the place before a final newline.
                (
                    #"{"name":"TWOMES-ABCDEF\n","device_type":"Generic-Test"}"#, 422,
                    #"{"detail":[{"loc":["body","name"],"msg":"string does not match regex \"TWOMES-[0-9a-fA-F]{6}\"","type":"value_error.str.regex"}]}"#
                ),
            ]
            for (body, status, expected) in cases {
                let reply = try await platform.request(.POST, "/device", json: body, admin: true)
                #expect(reply.status == status, "\(body)")
                #expect(reply.text == expected + "\n", "\(body)")
            }
            #expect(try await platform.request(.POST, "/device", json: "{}").status == 403)
        }

        /// A researcher who leaves the token out gets one the server chose: 128 bits from the CSPRNG, shown once,
        /// and it activates the device like a chosen one.
        @Test func aDeviceWithoutATokenGetsAStrongOneFromTheServer() async throws {
            let platform = try platform
            var tokens: Set<String> = []
            for _ in 0..<2 {
                let name = Self.deviceName()
                let created = try await platform.request(.POST, "/device", json: #"{"name":"\#(name)","device_type":"Generic-Test"}"#, admin: true)
                #expect(created.status == 200, "\(created.text)")
                let token = try #require(created.json?["activation_token"] as? String)
                #expect(token.count == 22 && token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
                #expect(
                    Data(base64Encoded: token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "==")?.count == 16)
                tokens.insert(token)
                let account = try await platform.request(.POST, "/account", json: "{}", admin: true)
                let accountToken = try #require(account.json?["activation_token"] as? String)
                let session = try #require(
                    try await platform.request(.POST, "/account/activate", json: #"{"activation_token":"\#(accountToken)"}"#).json?["session_token"]
                        as? String)
                let attached = try await platform.request(
                    .POST, "/account/device/activate", json: #"{"activation_token":"\#(token)"}"#,
                    headers: [("Authorization", "Bearer \(session)")])
                #expect(attached.status == 200 && attached.json?["name"] as? String == name, "\(attached.text)")
                let activated = try await platform.request(.POST, "/device/activate", json: #"{"activation_token":"\#(token)"}"#)
                #expect(activated.json?["session_token"] is String, "\(activated.text)")
                // Shown once: the device's own page does not repeat it.
                let again = try await platform.request(.POST, "/device", json: #"{"name":"\#(name)","device_type":"Generic-Test"}"#, admin: true)
                #expect(again.status == 400 && again.json?["activation_token"] == nil)
            }
            #expect(tokens.count == 2)
        }

        @Test func anotherAccountCannotTakeADeviceOver() async throws {
            let platform = try platform
            let first = try await Self.provision()
            let other = try await platform.request(.POST, "/account", json: "{}", admin: true)
            let otherToken = try #require(other.json?["activation_token"] as? String)
            let otherSession = try #require(
                try await platform.request(.POST, "/account/activate", json: #"{"activation_token":"\#(otherToken)"}"#).json?["session_token"]
                    as? String)
            let headers = [("Authorization", "Bearer \(otherSession)")]
            let takeover = try await platform.request(
                .POST, "/account/device/activate", json: #"{"activation_token":"\#(first.deviceToken)"}"#, headers: headers)
            #expect(takeover.status == 400)
            #expect(takeover.text == #"{"detail":"Device already activated"}"# + "\n")
            // Nor see it.
            let seen = try await platform.request(.GET, "/device/\(first.deviceName)", headers: headers)
            #expect(seen.status == 404)
            #expect(seen.text == #"{"detail":"Device \#(first.deviceName) not found"}"# + "\n")
            #expect(try await platform.request(.GET, "/device_type/\(first.deviceName)", headers: headers).status == 404)
        }

        @Test func appAndDeviceTokenErrors() async throws {
            let platform = try platform
            let bad = [("Authorization", "Bearer nope")]
            #expect(
                try await platform.request(.GET, "/device/TWOMES-000000", headers: bad).text == #"{"detail":"Invalid account session token"}"# + "\n")
            #expect(try await platform.request(.GET, "/device/TWOMES-000000").text == #"{"detail":"Not authenticated"}"# + "\n")
            let upload = try await platform.request(
                .POST, "/device/measurements/variable-interval", json: #"{"upload_time":1,"property_measurements":[]}"#, headers: bad)
            #expect(upload.status == 401)
            #expect(upload.text == #"{"detail":"Invalid device session token"}"# + "\n")
            let unknown = try await platform.request(.POST, "/device/activate", json: #"{"activation_token":"unknown-token"}"#)
            #expect(unknown.status == 404)
            #expect(unknown.text == #"{"detail":"No device found for provided activation token"}"# + "\n")
            let attachUnknown = try await platform.request(
                .POST, "/account/device/activate", json: #"{"activation_token":"unknown-token"}"#,
                headers: [("Authorization", "Bearer \(try await Self.provision().accountSession)")])
            #expect(attachUnknown.status == 404)

            // A device not attached to an account may not activate itself (E6 needs D5 first).
            let name = Self.deviceName()
            #expect(
                try await platform.request(
                    .POST, "/device", json: #"{"name":"\#(name)","device_type":"Generic-Test","activation_token":"unattached-\#(name)"}"#, admin: true
                ).status == 200)
            let unattached = try await platform.request(.POST, "/device/activate", json: #"{"activation_token":"unattached-\#(name)"}"#)
            #expect(unattached.status == 403)
            #expect(unattached.text == #"{"detail":"Device not attached to account"}"# + "\n")
        }

        @Test func fixedIntervalUploadsExpandToTimestamps() async throws {
            let platform = try platform
            let device = try await Self.provision(type: "OpenTherm-Monitor")
            let session = try #require(
                try await platform.request(.POST, "/device/activate", json: #"{"activation_token":"\#(device.deviceToken)"}"#).json?["session_token"]
                    as? String)
            let auth = [("Authorization", "Bearer \(session)")]
            let start =
                #"{"upload_time":"2021-06-01T10:00:00+02:00","property_measurements":[{"property_name":"roomTemp","timestamp":1622534400,"timestamp_type":"start","interval":300,"measurements":["20.5","20.6",20.7]}]}"#
            let reply = try await platform.request(.POST, "/device/measurements/fixed-interval", json: start, headers: auth)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["size"] as? Int == 3)
            let end =
                #"{"upload_time":1622600000,"property_measurements":[{"property_name":"boilerSupplyTemp","timestamp":"1622600000","timestamp_type":"end","interval":"PT1M","measurements":["55","56"]}]}"#
            #expect(try await platform.request(.POST, "/device/measurements/fixed-interval", json: end, headers: auth).status == 200)
            let stored = try platform.sql(
                """
                SELECT string_agg(p.name || '@' || extract(epoch FROM m.timestamp)::bigint || '=' || m.value, ',' ORDER BY p.name, m.timestamp)
                FROM devices.measurements m JOIN devices.properties p ON p.id = m.property_id JOIN devices.devices d ON d.id = m.device_id
                WHERE d.name = '\(device.deviceName)'
                """)
            // start: first at `timestamp`; end: last at `timestamp - interval`.
            #expect(
                stored
                    == "boilerSupplyTemp@1622599880=55,boilerSupplyTemp@1622599940=56,roomTemp@1622534400=20.5,roomTemp@1622534700=20.6,roomTemp@1622535000=20.7"
            )
        }

        @Test func aRetriedUploadStoresNothingTwiceAndGetsTheFirstAnswer() async throws {
            let platform = try platform
            let device = try await Self.provision()
            let session = try #require(
                try await platform.request(.POST, "/device/activate", json: #"{"activation_token":"\#(device.deviceToken)"}"#).json?["session_token"]
                    as? String)
            let auth = [("Authorization", "Bearer \(session)")]
            let body =
                #"{"upload_time":"1700000000","property_measurements":[{"property_name":"heartbeat","measurements":[{"timestamp":"1700000000","value":"1"},{"timestamp":1700000600,"value":1}]}]}"#
            let first = try await platform.request(.POST, "/device/measurements/variable-interval", json: body, headers: auth)
            try await Task.sleep(for: .milliseconds(1100))
            let retry = try await platform.request(.POST, "/device/measurements/variable-interval", json: body, headers: auth)
            #expect(first.status == 200)
            #expect(retry.text == first.text, "a retry gets the first answer, server_time included")
            let counts = try platform.sql(
                """
                SELECT (SELECT count(*) FROM devices.measurements m JOIN devices.devices d ON d.id = m.device_id WHERE d.name = '\(device.deviceName)'),
                       (SELECT count(*) FROM devices.uploads u JOIN devices.devices d ON d.id = u.device_id WHERE d.name = '\(device.deviceName)')
                """)
            #expect(counts == "2|1")
        }

        @Test func uploadValidation() async throws {
            let platform = try platform
            let device = try await Self.provision()
            let session = try #require(
                try await platform.request(.POST, "/device/activate", json: #"{"activation_token":"\#(device.deviceToken)"}"#).json?["session_token"]
                    as? String)
            let auth = [("Authorization", "Bearer \(session)")]
            let cases: [(String, String, Int, String)] = [
                (
                    "variable-interval",
                    #"{"upload_time":1,"property_measurements":[{"property_name":"roomTemp","measurements":[{"timestamp":1,"value":"1"}]},{"property_name":"CO2","measurements":[]}]}"#,
                    400, #"{"detail":"Invalid property name(s): {'CO2', 'roomTemp'}"}"#
                ),
                (
                    "variable-interval", #"{"upload_time":"2021-06-01T10:00:00","property_measurements":[]}"#,
                    422, #"{"detail":[{"loc":["body","upload_time"],"msg":"datetime without timezone","type":"value_error"}]}"#
                ),
                (
                    "variable-interval", #"{"upload_time":"yesterday","property_measurements":[]}"#,
                    422, #"{"detail":[{"loc":["body","upload_time"],"msg":"invalid datetime format","type":"value_error.datetime"}]}"#
                ),
                (
                    "variable-interval",
                    #"{"upload_time":1,"property_measurements":[{"property_name":"heartbeat","measurements":[{"timestamp":1}]}]}"#,
                    422,
                    #"{"detail":[{"loc":["body","property_measurements","0","measurements","0","value"],"msg":"field required","type":"value_error.missing"}]}"#
                ),
                (
                    "fixed-interval",
                    #"{"upload_time":1,"property_measurements":[{"property_name":"heartbeat","timestamp":1,"timestamp_type":"middle","interval":60,"measurements":["1"]}]}"#,
                    422,
                    #"{"detail":[{"loc":["body","property_measurements","0","timestamp_type"],"msg":"unexpected value; permitted: 'start', 'end'","type":"value_error.const"}]}"#
                ),
                (
                    "fixed-interval",
                    #"{"upload_time":1,"property_measurements":[{"property_name":"heartbeat","timestamp":1,"timestamp_type":"start","interval":"often","measurements":["1"]}]}"#,
                    422,
                    #"{"detail":[{"loc":["body","property_measurements","0","interval"],"msg":"invalid duration format","type":"value_error.duration"}]}"#
                ),
                (
                    "fixed-interval", #"{"property_measurements":[]}"#,
                    422, #"{"detail":[{"loc":["body","upload_time"],"msg":"field required","type":"value_error.missing"}]}"#
                ),
            ]
            for (route, body, status, expected) in cases {
                let reply = try await platform.request(.POST, "/device/measurements/\(route)", json: body, headers: auth)
                #expect(reply.status == status, "\(body)")
                #expect(reply.text == expected + "\n", "\(body)")
            }
            #expect(
                try platform.sql(
                    "SELECT count(*) FROM devices.uploads u JOIN devices.devices d ON d.id = u.device_id WHERE d.name = '\(device.deviceName)'")
                    == "0")
        }

        @Test func researchersManageDeviceTypesAndSeePseudonymsOnly() async throws {
            let platform = try platform
            let typeName = "Window-Sensor-\(UUID().uuidString.prefix(4))"
            let created = try await platform.request(
                .POST, "/admin/v1/device-types",
                json: #"{"name":"\#(typeName)","display_name":"Window sensor","properties":[{"name":"isOpen"},{"name":"roomTemp","unit":"°C"}]}"#,
                admin: true)
            #expect(created.status == 201, "\(created.text)")
            #expect(created.json?["installation_manual_url"] as? String == "https://energietransitiewindesheim.nl/manuals/\(typeName)/")
            #expect((created.json?["properties"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["heartbeat", "isOpen", "roomTemp"])
            let duplicate = try await platform.request(
                .POST, "/admin/v1/device-types", json: #"{"name":"\#(typeName)","display_name":"Again"}"#, admin: true)
            #expect(duplicate.status == 409)
            #expect(duplicate.text == #"{"error":{"message":"Device type \#(typeName) exists already","reason":"device_type_exists"}}"# + "\n")
            let invalid = try await platform.request(.POST, "/admin/v1/device-types", json: #"{"name":"bad name!","display_name":"x"}"#, admin: true)
            #expect(invalid.status == 422)
            let list = try await platform.request(.GET, "/admin/v1/device-types", admin: true)
            let names = (list.json?["device_types"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
            #expect(names.contains("Generic-Test") && names.contains(typeName))

            // The new type is usable at once.
            let device = try await Self.provision(type: typeName)
            let accounts = try await platform.request(.GET, "/admin/v1/accounts?limit=1000", admin: true)
            #expect(accounts.status == 200)
            let all = try #require(accounts.json?["accounts"] as? [[String: Any]])
            let withDevice = try #require(
                all.first { ($0["devices"] as? [[String: Any]])?.contains { $0["name"] as? String == device.deviceName } == true })
            #expect(Set(withDevice.keys) == ["pseudonym", "created_on", "activated_on", "activation_expires_at", "devices"], "no personal data")
            #expect(try await platform.request(.GET, "/admin/v1/accounts?limit=0", admin: true).status == 400)
        }
    }
}
