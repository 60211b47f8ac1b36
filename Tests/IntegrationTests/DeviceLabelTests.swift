import Foundation
import NIOHTTP1
import Testing

extension PlatformTests {
    /// Device labels (docs/admin.md, "Device labels"): the QR code a researcher sticks on the back of a prepared device.
    @Suite("Device labels")
    struct DeviceLabels {
        static func register(_ name: String, token: String) async throws {
            let reply = try await platform.request(
                .POST, "/device", json: #"{"name":"\#(name)","device_type":"Generic-Test","activation_token":"\#(token)"}"#, admin: true)
            #expect(reply.status == 200, "\(reply.text)")
        }

        @Test func aLabelScansToTheProvisioningPayloadByteForByte() async throws {
            let platform = try platform
            let name = TwomesProvisioning.deviceName()
            let token = String(UInt64.random(in: 100_000_000...999_999_999))
            try await Self.register(name, token: token)
            let ble = try await platform.request(.GET, "/admin/v1/devices/\(name)/label", admin: true)
            #expect(ble.status == 200)
            #expect(ble.headers.first(name: "Content-Type") == "image/png")
            #expect(try QRScanner.decode(ble.body) == Array(#"{"ver": "v1", "name": "\#(name)", "pop": "\#(token)", "transport": "ble"}"#.utf8))

            let softap = try await platform.request(.GET, "/admin/v1/devices/\(name)/label?transport=softap&ec=H&size=4", admin: true)
            #expect(
                try QRScanner.decode(softap.body)
                    == Array(
                        #"{"ver": "v1", "name": "\#(name)", "pop": "\#(token)", "transport": "softap", "security": "1", "password": "\#(token)"}"#
                            .utf8))

            let svg = try await platform.request(.GET, "/admin/v1/devices/\(name)/label?format=svg", admin: true)
            #expect(svg.headers.first(name: "Content-Type") == "image/svg+xml")
            #expect(!svg.text.contains(token), "the token is in the code, not in the file as text")
        }

        @Test func aSheetHasOneLabelPerDeviceInTheOrderAsked() async throws {
            let platform = try platform
            let names = (0..<14).map { _ in TwomesProvisioning.deviceName() }
            for (index, name) in names.enumerated() { try await Self.register(name, token: "sheet-token-\(index)-\(name)") }
            let query = names.map { "name=\($0)" }.joined(separator: "&")
            let sheet = try await platform.request(.GET, "/admin/v1/device-labels?\(query)", admin: true)
            #expect(sheet.status == 200, "\(sheet.text)")
            #expect(sheet.headers.first(name: "Content-Type") == "text/html; charset=utf-8")
            #expect(sheet.text.components(separatedBy: "<svg ").count - 1 == 14)
            #expect(sheet.text.components(separatedBy: "class=\"page\"").count - 1 == 2, "twelve labels a page")
            // A name missing from the sheet fails here, without a force-unwrap that would stop every other test.
            let positions = try names.map { name in try #require(sheet.text.range(of: ">\(name)</div>")?.lowerBound, "\(sheet.status)") }
            #expect(zip(positions, positions.dropFirst()).allSatisfy { $0 < $1 })
            #expect(!sheet.text.contains("sheet-token-"), "tokens only inside the codes")
        }

        @Test func theDeviceListSaysWhichLabelsArePrintedAndASheetOfTheRestPrintsThem() async throws {
            let platform = try platform
            let names = (0..<2).map { _ in TwomesProvisioning.deviceName() }
            for name in names { try await Self.register(name, token: "unprinted-\(name)") }
            func listed(_ query: String) async throws -> [[String: Any]] {
                let reply = try await platform.request(.GET, "/admin/v1/devices?limit=1000\(query)", admin: true)
                #expect(reply.status == 200, "\(reply.text)")
                return (reply.json?["devices"] as? [[String: Any]] ?? []).filter { names.contains($0["name"] as? String ?? "") }
            }
            let unprinted = try await listed("&label_printed=false")
            #expect(unprinted.count == 2)
            #expect(unprinted.allSatisfy { $0["pseudonym"] is NSNull && $0["label_printed_on"] is NSNull && $0["last_seen"] is NSNull })
            #expect(unprinted.allSatisfy { $0["device_type"] as? String == "Generic-Test" })

            let sheet = try await platform.request(.GET, "/admin/v1/device-labels?unprinted=true", admin: true)
            #expect(sheet.status == 200, "\(sheet.text)")
            #expect(names.allSatisfy { sheet.text.contains(">\($0)</div>") })
            #expect(try await listed("&label_printed=false").isEmpty)
            let printed = try await listed("&label_printed=true")
            #expect(printed.count == 2 && printed.allSatisfy { $0["label_printed_on"] is String })

            // Pages by name: `next_after` of a full page is where the next one starts.
            let first = try await platform.request(.GET, "/admin/v1/devices?limit=1", admin: true)
            let next = try #require(first.json?["next_after"] as? String)
            let second = try await platform.request(.GET, "/admin/v1/devices?limit=1&after=\(next)", admin: true)
            #expect(((second.json?["devices"] as? [[String: Any]])?.first?["name"] as? String ?? "") > next)
        }

        @Test func labelErrors() async throws {
            let platform = try platform
            let name = TwomesProvisioning.deviceName()
            try await Self.register(name, token: "label-errors-\(name)")
            let cases: [(String, Int, String)] = [
                ("/admin/v1/devices/TWOMES-FFFFFF/label", 404, "Device TWOMES-FFFFFF not found"),
                ("/admin/v1/devices/\(name)/label?transport=wifi", 400, "transport must be ble or softap"),
                ("/admin/v1/devices/\(name)/label?format=gif", 400, "format must be png or svg"),
                ("/admin/v1/devices/\(name)/label?size=0", 400, "size must be from 1 to 64 pixels per module"),
                ("/admin/v1/device-labels", 400, "name at least one device (name=TWOMES-…)"),
                ("/admin/v1/device-labels?name=\(name)&name=TWOMES-EEEEEE", 404, "Unknown device(s): TWOMES-EEEEEE"),
                ("/admin/v1/device-labels?unprinted=maybe", 400, "unprinted must be true or false"),
                ("/admin/v1/device-labels?unprinted=true&name=\(name)", 400, "name devices or ask for the unprinted ones, not both"),
                ("/admin/v1/devices?label_printed=1", 400, "label_printed must be true or false"),
                ("/admin/v1/devices?limit=0", 400, "limit must be a whole number from 1 to 1000"),
            ]
            for (path, status, message) in cases {
                let reply = try await platform.request(.GET, path, admin: true)
                #expect(reply.status == status, "\(path)")
                #expect((reply.json?["error"] as? [String: String])?["message"] == message, "\(reply.text)")
            }
            #expect(try await platform.request(.GET, "/admin/v1/devices/\(name)/label").status == 401)
        }
    }
}
