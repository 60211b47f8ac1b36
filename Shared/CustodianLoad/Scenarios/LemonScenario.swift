import CustodianLemon
import Foundation
import LemonClient

/// The LEMON tracing app (docs/lemon.md): apps registered through the handshake before the clock; then the symptoms
/// fetched (one in three) and surveys submitted, sealed end to end with the session's keys as the app seals
/// them. Each survey has a test date of its own; read back through the researcher's submission export.
struct LemonScenario: Scenario {
    let name = "lemon"

    /// Test dates are placed from here on, one second apart: 2020-03-01 (after the first recorded case) and a
    /// random number of seconds up to a year, so that two runs against the same platform do not share dates.
    let firstTestDate = 1_583_020_800 + Int.random(in: 0..<31_536_000)

    let lemon: LemonClient
    let sessions: [LemonSession]
    let startedAt: Date
    let ledger = Ledger<Int>()

    static func prepare(client: LoadClient, apps count: Int, log: @escaping @Sendable (String) -> Void) async throws -> LemonScenario {
        let keys = try await LemonClient.publishedKeys(baseURL: client.baseURL, http: client.http)
        guard let serverKey = keys.first else { throw SetupError("the server publishes no LEMON key") }
        let lemon = LemonClient(
            baseURL: client.baseURL, http: client.http, serverKey: serverKey, handshakeHeaders: [client.syntheticHeader], onAnswer: AnswerTrace.note)
        // Submissions are read back by the day they arrived; a minute's margin for the clocks.
        let startedAt = Date().addingTimeInterval(-60)
        let sessions = try await concurrently(Array(0..<count), width: 4) { _ in
            var attempt = 0
            while true {
                do {
                    return try await lemon.register(LemonApp.generate())
                } catch LemonClientError.refused(let status, let message) where status == 429 && attempt < 3 {
                    attempt += 1
                    _ = message
                    try await Task.sleep(for: .seconds(2))
                } catch {
                    throw SetupError("a LEMON registration failed: \(error)")
                }
            }
        }
        log("lemon      \(sessions.count) apps registered, each with a session")
        return LemonScenario(lemon: lemon, sessions: sessions, startedAt: startedAt)
    }

    func testDate(_ second: Int) -> String {
        let date = Date(timeIntervalSince1970: TimeInterval(firstTestDate + second))
        return Date.ISO8601FormatStyle(timeZone: .gmt).format(date).replacingOccurrences(of: "Z", with: "")
    }

    func operation(_ number: Int, client: LoadClient) async -> OperationOutcome {
        let session = sessions[number % sessions.count]
        if number % 3 == 0 {
            do {
                return .answered("symptoms", try await lemon.call(.GET, "/api/v1/symptoms", session: session).status)
            } catch {
                return .failed("symptoms", error)
            }
        }
        let survey = #"{"Status":"Positive","PositiveTestDate":"\#(testDate(number))","IsSymptomatic":false}"#
        do {
            let reply = try await lemon.call(.POST, "/api/v1/submission/covid", body: Data(survey.utf8), session: session)
            if (200..<300).contains(reply.status) { ledger.record(number) }
            return .answered("submission", reply.status)
        } catch {
            return .failed("submission", error)
        }
    }

    func verify(client: LoadClient) async throws -> Verification {
        let from = Date.ISO8601FormatStyle(timeZone: .gmt).format(startedAt)
        let reply = try await client.send(
            .GET, "/admin/v1/statistics/submissions?format=ndjson&include_synthetic=true&from=\(from)", admin: true, timeout: .seconds(300))
        guard reply.succeeded else { throw SetupError.refused("the submission export", reply) }
        let found = reply.text.split(separator: "\n").compactMap { line -> Int? in
            guard let row = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let date = row["positive_test_date"] as? String, let seconds = ExportTime.seconds(date)
            else { return nil }
            return seconds - firstTestDate
        }
        return ledger.verification(name, found: found, notes: ["read back by test date among the submissions since the run started"])
    }
}
