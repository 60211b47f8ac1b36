import Foundation
import Synchronization

/// Twomes devices (docs/twomes.md): accounts created by a researcher and activated in the app, devices registered with a
/// server-chosen token, attached and activated; then heartbeat uploads (nine in ten) and fixed-interval uploads of
/// ten measurements, each at times of its own. Read back through the researcher's measurement export.
struct TwomesScenario: Scenario {
    let name = "twomes"

    /// What the devices upload: the mix of a real fleet, only heartbeats, or batches of n measurements.
    enum Shape: Sendable {
        case fleet
        case heartbeats
        case batches(Int)
    }

    final class Device: Sendable {
        let name: String
        let sessionToken: String
        /// The next free second of this device's timeline: every measurement of the run has a time of its own.
        let nextSecond = Atomic<Int>(0)

        init(name: String, sessionToken: String) {
            self.name = name
            self.sessionToken = sessionToken
        }
    }

    struct Measurement: Hashable, Sendable {
        var device: String
        var second: Int
    }

    /// Measurements are placed from here on, one second apart per device (2020-09-13, well inside 1970–2100).
    static let firstSecond = 1_600_000_000
    static let fixedIntervalCount = 10

    let devices: [Device]
    var shape = Shape.fleet
    let ledger = Ledger<Measurement>()

    static func prepare(
        client: LoadClient, devices count: Int, shape: Shape = .fleet,
        log: @escaping @Sendable (String) -> Void
    ) async throws -> TwomesScenario {
        let devices = try await concurrently(Array(0..<count)) { _ in try await provision(client) }
        log("twomes     \(devices.count) accounts with a device each, activated")
        return TwomesScenario(devices: devices, shape: shape)
    }

    /// Phases A–E (docs/twomes.md, "Provisioning steps"), as the researcher, the app and the device make them.
    static func provision(_ client: LoadClient) async throws -> Device {
        let account = try await client.setupJSON("POST /account", .POST, "/account", json: "{}", admin: true)
        guard let activation = account["activation_token"] as? String else { throw SetupError("POST /account gave no activation token") }
        let session = try await client.setupJSON(
            "POST /account/activate", .POST, "/account/activate", json: #"{"activation_token":"\#(activation)"}"#)
        guard let accountSession = session["session_token"] as? String else { throw SetupError("POST /account/activate gave no session") }
        // Twomes device names (`TWOMES-` and six hex digits) leave room for 16.7 million devices: a load that makes
        // thousands meets one in use now and then.
        var created: (name: String, device: [String: Any])?
        for _ in 0..<8 where created == nil {
            let name = "TWOMES-" + String(format: "%06X", Int.random(in: 0..<0x1000000))
            do {
                created = (
                    name,
                    try await client.setupJSON(
                        "POST /device", .POST, "/device", json: #"{"name":"\#(name)","device_type":"Generic-Test"}"#, admin: true)
                )
            } catch let error as SetupError where error.description.contains("Device name already in use") {
                continue
            }
        }
        guard let (name, device) = created else { throw SetupError("POST /device: eight random device names in a row were in use") }
        guard let token = device["activation_token"] as? String else { throw SetupError("POST /device gave no activation token") }
        _ = try await client.setupJSON(
            "POST /account/device/activate", .POST, "/account/device/activate",
            json: #"{"activation_token":"\#(token)"}"#, headers: [("Authorization", "Bearer \(accountSession)")])
        let activated = try await client.setupJSON("POST /device/activate", .POST, "/device/activate", json: #"{"activation_token":"\#(token)"}"#)
        guard let deviceSession = activated["session_token"] as? String else { throw SetupError("POST /device/activate gave no session") }
        return Device(name: name, sessionToken: deviceSession)
    }

    func operation(_ number: Int, client: LoadClient) async -> OperationOutcome {
        let device = devices[number % devices.count]
        let fixed: Bool
        let count: Int
        let kind: String
        switch shape {
        case .fleet:
            fixed = number % 10 == 9
            count = fixed ? Self.fixedIntervalCount : 1
            kind = fixed ? "fixed-interval" : "heartbeat"
        case .heartbeats:
            (fixed, count, kind) = (false, 1, "heartbeat")
        case .batches(let size):
            (fixed, count, kind) = (false, size, "batch")
        }
        let start = device.nextSecond.wrappingAdd(count, ordering: .relaxed).oldValue
        let seconds = (start..<start + count).map { Self.firstSecond + $0 }
        let now = Int(Date().timeIntervalSince1970)
        let body: String
        if fixed {
            let values = (0..<count).map { "\"\($0)\"" }.joined(separator: ",")
            body =
                #"{"upload_time":\#(now),"property_measurements":[{"property_name":"heartbeat","timestamp":\#(seconds[0]),"timestamp_type":"start","interval":1,"measurements":[\#(values)]}]}"#
        } else {
            let measurements = seconds.map { #"{"timestamp":\#($0),"value":"0"}"# }.joined(separator: ",")
            body = #"{"upload_time":\#(now),"property_measurements":[{"property_name":"heartbeat","measurements":[\#(measurements)]}]}"#
        }
        do {
            let reply = try await client.send(
                .POST, "/device/measurements/\(fixed ? "fixed" : "variable")-interval", json: body,
                headers: [("Authorization", "Bearer \(device.sessionToken)")])
            if reply.succeeded { ledger.record(seconds.map { Measurement(device: device.name, second: $0) }) }
            return .answered(kind, reply.status)
        } catch {
            return .failed(kind, error)
        }
    }

    func verify(client: LoadClient) async throws -> Verification {
        let found = try await concurrently(devices) { device in
            let reply = try await client.send(
                .GET, "/admin/v1/measurements?device=\(device.name)&format=csv&include_synthetic=true", admin: true, timeout: .seconds(300))
            guard reply.succeeded else { throw SetupError.refused("the measurement export", reply) }
            // pseudonym,device,device_type,property,unit,timestamp,value
            return reply.text.split(separator: "\r\n").dropFirst().compactMap { line -> Measurement? in
                let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                guard fields.count >= 7, let second = ExportTime.seconds(String(fields[5])) else { return nil }
                return Measurement(device: String(fields[1]), second: second)
            }
        }
        return ledger.verification(name, found: found.flatMap { $0 })
    }
}

/// Times as the exports write them: ISO 8601 with an offset (`2020-09-13T12:26:40+00:00`) or without a zone (UTC,
/// the tracing API's `2020-03-01T00:00:05` and `2020-03-01T00:00:05.000000`).
enum ExportTime {
    static func seconds(_ text: String) -> Int? {
        var text = text
        if text.hasSuffix("+00:00") { text = String(text.dropLast(6)) }
        if text.hasSuffix("Z") { text = String(text.dropLast()) }
        if let dot = text.firstIndex(of: ".") { text = String(text[..<dot]) }
        let parts = text.split(whereSeparator: { "-T: ".contains($0) }).compactMap { Int($0) }
        guard parts.count == 6 else { return nil }
        var components = DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4], second: parts[5])
        components.timeZone = .gmt
        return Calendar(identifier: .gregorian).date(from: components).map { Int($0.timeIntervalSince1970) }
    }
}
