import Crypto
import CustodianSecurity
import Foundation
import Synchronization

/// The OpenSense app (docs/opensense.md): devices registered before the clock; then the configuration fetched (one in five)
/// and batches uploaded as the app does, form-encoded with the MD5 of the data. Read back through the researcher's
/// batch export.
struct OpenSenseScenario: Scenario {
    let name = "opensense"

    struct Batch: Hashable, Sendable {
        var device: String
        var sequence: Int
    }

    let devices: [String]
    let ledger = Ledger<Batch>()

    static func prepare(client: LoadClient, devices count: Int, log: @escaping @Sendable (String) -> Void) async throws -> OpenSenseScenario {
        let devices = try await concurrently(Array(0..<count)) { _ in
            let id = UUID().uuidString.lowercased()
            _ = try await client.setupJSON(
                "POST /register", .POST, "/register", body: form([("device_id", id)]),
                headers: [("Content-Type", "application/x-www-form-urlencoded")])
            return id
        }
        log("opensense  \(devices.count) devices registered")
        return OpenSenseScenario(devices: devices)
    }

    static func form(_ fields: [(String, String)]) -> Data {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return Data(fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&").utf8)
    }

    static func md5(_ text: String) -> String {
        Hex.encode(Insecure.MD5.hash(data: Data(text.utf8)))
    }

    func operation(_ number: Int, client: LoadClient) async -> OperationOutcome {
        if number % 5 == 0 {
            do {
                return .answered("config", try await client.send(.GET, "/config").status)
            } catch {
                return .failed("config", error)
            }
        }
        let device = devices[number % devices.count]
        let data = #"[{"probe":"dk.dtu.imm.sensible.battery","datetime":"2020-06-01 14:05","level":0.85,"state":"charging","sequence":\#(number)}]"#
        do {
            let reply = try await client.send(
                .POST, "/upload", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Self.form([("device_id", device), ("data", data), ("file_hash", Self.md5(data))]))
            if reply.succeeded { ledger.record(Batch(device: device, sequence: number)) }
            return .answered("upload", reply.status)
        } catch {
            return .failed("upload", error)
        }
    }

    func verify(client: LoadClient) async throws -> Verification {
        let found = try await concurrently(devices) { device in
            let reply = try await client.send(
                .GET, "/admin/v1/opensense/batches?device_id=\(device)&format=ndjson&include_synthetic=true", admin: true, timeout: .seconds(300))
            guard reply.succeeded else { throw SetupError.refused("the batch export", reply) }
            return reply.text.split(separator: "\n").compactMap { line -> Batch? in
                guard let row = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let payload = row["payload"] as? [String: Any], let sequence = payload["sequence"] as? Int
                else { return nil }
                return Batch(device: device, sequence: sequence)
            }
        }
        return ledger.verification(name, found: found.flatMap { $0 })
    }
}
