import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import DevicesService
import Foundation
import LinksService
import PostgresNIO
import ServiceTestSupport
import Testing

/// Twomes measurement uploads (docs/twomes.md, "Measurement uploads") as the devices service stores them, called as the gateway would with
/// the device's session token: a retried upload stores nothing twice, a refused one stores nothing at all, and
/// times in each form a device sends land where they belong.
@Suite("devices: measurement uploads")
struct UploadServiceTests {
    static let admin = Principal(kind: .admin, id: "test-admin")

    /// An account activated in the app and a `DSMR-P1-gateway` attached to it and activated: the device's token.
    static func provisionedDevice(on harness: ServiceHarness) async throws -> Credential {
        let account = try await harness.call(DevicesMethods.accountCreate, CreateAccountRequest(), as: admin)
        let activated = try await harness.call(DevicesMethods.accountActivate, AccountActivation(activationToken: account.activation_token))
        let app = Credential(token: activated.session_token, expectedKind: .account)
        let token = "device-\(UInt32.random(in: 0...UInt32.max))"
        let name = String(format: "TWOMES-%06x", UInt32.random(in: 0...0xFFFFFF))
        _ = try await harness.call(
            DevicesMethods.deviceCreate, CreateDeviceRequest(name: name, deviceType: "DSMR-P1-gateway", activationToken: token), as: admin)
        _ = try await harness.call(DevicesMethods.deviceAttach, DeviceActivation(activationToken: token), credential: app)
        let device = try await harness.call(DevicesMethods.deviceActivate, DeviceActivation(activationToken: token))
        return Credential(token: device.session_token, expectedKind: .device)
    }

    static func run(_ body: @Sendable (ServiceHarness, Credential) async throws -> Void) async throws {
        try await ServiceHarness.run([DevicesService.definition, LinksService.definition]) { harness in
            try await body(harness, try await provisionedDevice(on: harness))
        }
    }

    /// A heartbeat measured and sent at `time`.
    static func heartbeat(at time: Date) -> VariableIntervalUpload {
        VariableIntervalUpload(uploadTime: time, properties: [.init(name: "heartbeat", measurements: [.init(timestamp: time, value: "1")])])
    }

    /// A body as a device sent it, for what the decoding makes of it (key order, time forms, mistakes).
    static func upload(_ json: String) throws -> HTTPInput {
        HTTPInput(body: try JSONValue.parse(Array(json.utf8), maximumDepth: 32))
    }

    static func count(_ table: String, on harness: ServiceHarness) async throws -> Int {
        try await harness.scalar(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table)"), as: Int.self) ?? -1
    }

    @Test func aRetriedUploadStoresNothingTwiceWhateverItsKeyOrder() async throws {
        try await Self.run { harness, device in
            let first = try Self.upload(
                #"""
                {"upload_time":"1622237550","property_measurements":[
                  {"property_name":"eMeterReadingSupplyLow","measurements":[{"timestamp":"1622237500","value":"1.5"},{"timestamp":"1622237510","value":"1.6"}]},
                  {"property_name":"heartbeat","measurements":[{"timestamp":"1622237550","value":"1"}]}]}
                """#)
            let reordered = try Self.upload(
                #"""
                {"property_measurements":[
                  {"measurements":[{"value":"1.5","timestamp":"1622237500"},{"value":"1.6","timestamp":"1622237510"}],"property_name":"eMeterReadingSupplyLow"},
                  {"measurements":[{"value":"1","timestamp":"1622237550"}],"property_name":"heartbeat"}],"upload_time":"1622237550"}
                """#)
            let answer = try await harness.call(DevicesMethods.measurementsVariable.forwarded, first, credential: device)
            // The device lost the answer and sends again; its firmware rebuilt the JSON in another order.
            let again = try await harness.call(DevicesMethods.measurementsVariable.forwarded, first, credential: device)
            let reorderedAgain = try await harness.call(DevicesMethods.measurementsVariable.forwarded, reordered, credential: device)
            #expect(again == answer)
            #expect(reorderedAgain == answer)
            #expect(try await Self.count("devices.uploads", on: harness) == 1)
            #expect(try await Self.count("devices.measurements", on: harness) == 3)

            // Parallel retries too.
            let later = try Self.upload(
                #"{"upload_time":"1622237650","property_measurements":[{"property_name":"heartbeat","measurements":[{"timestamp":"1622237650","value":"1"}]}]}"#
            )
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<6 {
                    group.addTask { _ = try await harness.call(DevicesMethods.measurementsVariable.forwarded, later, credential: device) }
                }
                try await group.waitForAll()
            }
            #expect(try await Self.count("devices.uploads", on: harness) == 2)
            #expect(try await Self.count("devices.measurements", on: harness) == 4)
        }
    }

    @Test func aRefusedUploadStoresNothing() async throws {
        try await Self.run { harness, device in
            let at = Date(timeIntervalSince1970: 1_622_237_550)
            let unknownProperty = VariableIntervalUpload(
                uploadTime: at,
                properties: [
                    .init(name: "heartbeat", measurements: [.init(timestamp: at, value: "1")]),
                    .init(name: "roomTemp", measurements: [.init(timestamp: at, value: "21.5")]),
                ])
            let refused = await rpcError { try await harness.call(DevicesMethods.measurementsVariable, unknownProperty, credential: device) }
            #expect(refused == .badRequest("Invalid property name(s): {'roomTemp'}", reason: "invalid_property_names"))
            let badTime = try Self.upload(
                #"""
                {"upload_time":"1622237550","property_measurements":[
                  {"property_name":"heartbeat","measurements":[{"timestamp":"1622237550","value":"1"},{"timestamp":"2021-05-28T21:32:30","value":"1"}]}]}
                """#)
            let naive = await rpcError { try await harness.call(DevicesMethods.measurementsVariable.forwarded, badTime, credential: device) }
            #expect(naive?.code == .unprocessable)
            #expect(
                naive?.details == [
                    [
                        "loc": ["body", "property_measurements", "0", "measurements", "1", "timestamp"],
                        "msg": "datetime without timezone", "type": "value_error",
                    ]
                ])
            #expect(try await Self.count("devices.uploads", on: harness) == 0)
            #expect(try await Self.count("devices.measurements", on: harness) == 0)
            // A stranger learns nothing about the body's checks: the token is refused first.
            let stranger = await rpcError {
                try await harness.call(
                    DevicesMethods.measurementsVariable.forwarded, badTime, credential: Credential(token: "guess", expectedKind: .device))
            }
            #expect(stranger?.code == .unauthenticated || stranger?.code == .forbidden, "\(String(describing: stranger))")
        }
    }

    @Test func timesInEveryFormLandAtTheSameInstant() async throws {
        try await Self.run { harness, device in
            // One instant, 2021-05-28T21:32:30Z, as seconds, milliseconds, a numeric string, and ISO 8601 in two zones.
            let forms: [JSONValue] = [1_622_237_550, 1_622_237_550_000, "1622237550", "2021-05-28T21:32:30Z", "2021-05-28T23:32:30+02:00"]
            for (index, form) in forms.enumerated() {
                let body: JSONValue = [
                    "upload_time": .int(1_622_237_600 + Int64(index)),
                    "property_measurements": [
                        ["property_name": "heartbeat", "measurements": [["timestamp": form, "value": .string(String(index))]]]
                    ],
                ]
                _ = try await harness.call(DevicesMethods.measurementsVariable.forwarded, HTTPInput(body: body), credential: device)
            }
            // Five uploads, one stored instant: the first sample kept, the others already there.
            #expect(try await Self.count("devices.uploads", on: harness) == 5)
            let stored = try await harness.scalar(
                "SELECT string_agg(extract(epoch FROM timestamp)::bigint::text || '=' || value, ',') FROM devices.measurements", as: String.self)
            #expect(stored == "1622237550=0")
        }
    }

    @Test func fixedIntervalSeriesThatWouldLeaveTheCalendarAreRefused() async throws {
        try await Self.run { harness, device in
            func fixed(_ timestamp: String, interval: String, type: String, values: Int) throws -> HTTPInput {
                let measurements = (0..<values).map { "\"\($0)\"" }.joined(separator: ",")
                return try Self.upload(
                    #"""
                    {"upload_time":"1622237550","property_measurements":[{"property_name":"eMeterReadingSupplyLow","timestamp":"\#(timestamp)",
                      "timestamp_type":"\#(type)","interval":\#(interval),"measurements":[\#(measurements)]}]}
                    """#)
            }
            // 2,000 samples 31 days apart (the longest interval) from 2000 would run past 2100; ending in 2000, they
            // would start before 1970.
            for (body, location) in [
                (try fixed("946684800", interval: "2678400", type: "start", values: 2000), "timestamp"),
                (try fixed("946684800", interval: "2678400", type: "end", values: 2000), "timestamp"),
                (try fixed("946684800", interval: "0", type: "start", values: 2), "interval"),
            ] {
                let refused = await rpcError { try await harness.call(DevicesMethods.measurementsFixed.forwarded, body, credential: device) }
                #expect(refused?.code == .unprocessable)
                guard case .array(let problems)? = refused?.details, case .array(let loc)? = problems.first?["loc"] else {
                    Issue.record("no location in \(String(describing: refused))")
                    continue
                }
                #expect(loc.last == .string(location), "\(String(describing: refused))")
            }
            #expect(try await Self.count("devices.measurements", on: harness) == 0)
            // `end`: the last sample one interval before the timestamp.
            let series = FixedIntervalUpload.Series(
                property: "eMeterReadingSupplyLow", timestamp: Date(timeIntervalSince1970: 1_622_237_550), timestampType: .end, interval: 60,
                values: ["1", "2", "3"])
            let answer = try await harness.call(
                DevicesMethods.measurementsFixed, FixedIntervalUpload(uploadTime: Date(timeIntervalSince1970: 1_622_237_550), series: [series]),
                credential: device)
            #expect(answer.size == 3)
            let times = try await harness.scalar(
                "SELECT string_agg(extract(epoch FROM timestamp)::bigint::text, ',' ORDER BY timestamp) FROM devices.measurements", as: String.self)
            #expect(times == "1622237370,1622237430,1622237490")
        }
    }
}
