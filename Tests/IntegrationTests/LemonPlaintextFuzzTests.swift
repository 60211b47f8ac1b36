import CustodianLemon
import Foundation
import LemonClient
import NIOHTTP1
import Testing

/// On a platform of its own: hundreds of submissions and apps would disturb the counts other suites check.
@Suite(.runningPlatform)
struct LemonPlaintextFuzzTests {
    /// The tracing app's sealed routes carry bodies no outside fuzzer can make, so this suite makes them: plaintexts
    /// grown from valid ones (as docs/lemon.md shows them) by random changes (fields dropped, added, retyped; strings, numbers and
    /// nesting at their extremes; text that is not JSON at all), each sealed with a real session's keys and sent
    /// through the gateway. Whatever the plaintext, the answer is the tracing API's envelope with a 2xx or 4xx —
    /// never a 5xx. A failure names the seed and the plaintext: `CUSTODIAN_FUZZ_SEED=<seed>` repeats the run.
    @Suite("LEMON sealed plaintexts, fuzzed")
    struct LemonPlaintextFuzz {
        /// Plaintexts per run: a few hundred in a few seconds; `CUSTODIAN_FUZZ_CASES` for a longer run.
        static let cases = ProcessInfo.processInfo.environment["CUSTODIAN_FUZZ_CASES"].flatMap(Int.init) ?? 300

        /// The sealed routes that take a body, each with a body it accepts (docs/lemon.md).
        static let routes: [(HTTPMethod, String, String)] = [
            (
                .POST, "/api/v1/submission/covid",
                #"{"Status":"Recovered","PositiveTestDate":"2020-03-29 13:00:09.1359267","NegativeTestDate":"2020-03-30 13:00:09.1359267","Country":"GB","Language":"EN","Age":25,"IsSymptomatic":false}"#
            ),
            (.POST, "/api/v1/submission/covid", #"{"Status":"Positive","IsSymptomatic":true,"Symptoms":["question_positive_symptom-1"]}"#),
            (.POST, "/api/v1/devices/push_token", #"{"pushToken":"push-token-1"}"#),
            (.POST, "/api/v1/devices/active?status=true", #"{}"#),
            (.DELETE, "/api/v1/devices/push_token", #"{}"#),
            (.GET, "/api/v1/symptoms?language=de", #"{}"#),
        ]

        @Test func noSealedPlaintextGetsAServerError() async throws {
            let seed = ProcessInfo.processInfo.environment["CUSTODIAN_FUZZ_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
            var random = SplitMix64(seed: seed)
            let client = try await PlatformTests.Lemon.client()
            var session = try await client.register(LemonApp.generate())
            var byStatus: [Int: Int] = [:]
            for index in 0..<Self.cases {
                let (method, path, valid) = Self.routes[Int(random.next() % UInt64(Self.routes.count))]
                let plaintext = PlaintextMutator.mutate(valid, random: &random)
                let reply: LemonReply
                do {
                    reply = try await client.call(method, path, body: plaintext, session: session)
                } catch {
                    Issue.record(
                        "seed \(seed), case \(index): \(method) \(path) with \(String(decoding: plaintext.prefix(300), as: UTF8.self)): no envelope came back: \(error)"
                    )
                    continue
                }
                byStatus[reply.status, default: 0] += 1
                #expect(
                    reply.status < 500 && reply.envelope.code == reply.status && reply.envelope.success == (reply.status < 400),
                    "seed \(seed), case \(index): \(method) \(path) with \(String(decoding: plaintext.prefix(300), as: UTF8.self)) → \(reply.status) \(reply.envelope.message ?? "")"
                )
                // A refused token (a session that ended) would make every later case a 401: start a new one.
                if reply.status == 401 { session = try await client.register(LemonApp.generate()) }
            }
            // The generator must also reach the accepting paths, or it tests only the first refusal.
            #expect(byStatus.keys.contains { $0 < 300 } && byStatus.keys.contains { $0 >= 400 }, "seed \(seed): statuses \(byStatus)")
        }
    }
}

/// A small, seeded random source, so a failing run can be repeated exactly.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Grows hostile plaintexts from a valid JSON object.
enum PlaintextMutator {
    static let strings: [String] = [
        "", " ", "\u{0}", "\u{1F}", "a\u{0}b", String(repeating: "x", count: 5000), "ü", "😀", "\u{202E}gb", "null", "true", "0",
        "-1", "1e400", "9223372036854775808", "2020-02-30", "2020-03-29T25:00:00Z", "0000-00-00 00:00:00", "9999-12-31 23:59:59.9999999999",
        "Positive", "POSITIVE", "I Don’t Know", "i_dont_know", "Negative ", "gb", "GB", "XX", "en", "zz", "question_positive_symptom-1",
        "question_positive_symptom-999", "'; DROP TABLE statistics.submissions; --", "<script>", "%00", "\\u0000", "\u{FFFF}",
    ]
    static let numbers: [String] = [
        "0", "-0", "1", "-1", "200", "201", "255", "2147483648", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
        "1e308", "1e309", "-1e309", "0.5", "25.0", "1E2", "123456789012345678901234567890",
    ]
    static let keys = [
        "Status", "status", "STATUS", "PositiveTestDate", "NegativeTestDate", "Country", "Language", "Age", "IsSymptomatic",
        "Symptoms", "pushToken", "PushToken", "unknown", "", "\u{0}", "__proto__", String(repeating: "k", count: 300),
    ]

    static func mutate(_ valid: String, random: inout SplitMix64) -> Data {
        var members = members(of: valid)
        let changes = 1 + Int(random.next() % 3)
        for _ in 0..<changes {
            // (`where` guards only the last pattern of a case, hence one pattern per guarded case.)
            switch random.next() % 10 {
            case 0 where !members.isEmpty:  // drop a field
                members.remove(at: Int(random.next() % UInt64(members.count)))
            case 1 where !members.isEmpty, 2 where !members.isEmpty:  // give a field another value
                let index = Int(random.next() % UInt64(members.count))
                members[index].1 = value(random: &random, depth: 0)
            case 3:  // add a field, known or not
                members.append((pick(keys, &random), value(random: &random, depth: 0)))
            case 4 where !members.isEmpty:  // the same key twice, in another case
                let (key, value) = members[Int(random.next() % UInt64(members.count))]
                members.append((random.next() % 2 == 0 ? key.lowercased() : key, value))
            case 5:  // not an object at all
                return Data(value(random: &random, depth: 0).utf8)
            case 6:  // text that is not JSON
                let text = object(members)
                let cut = text.index(text.startIndex, offsetBy: Int(random.next() % UInt64(max(1, text.count))))
                return Data(
                    pick([String(text[..<cut]), text + "}", text + ",", "{" + text, text.replacingOccurrences(of: "\"", with: "'"), ""], &random).utf8
                )
            case 7:  // bytes that are not UTF-8
                var bytes = Array(object(members).utf8)
                bytes.insert(pick([0xFF, 0xC3, 0x80, 0xED], &random), at: Int(random.next() % UInt64(bytes.count + 1)))
                return Data(bytes)
            default:  // deep nesting
                members.append((pick(keys, &random), String(repeating: "[", count: 600) + String(repeating: "]", count: 600)))
            }
        }
        return Data(object(members).utf8)
    }

    static func value(random: inout SplitMix64, depth: Int) -> String {
        switch random.next() % (depth > 2 ? 5 : 7) {
        case 0: return quoted(pick(strings, &random))
        case 1: return pick(numbers, &random)
        case 2: return pick(["true", "false", "null"], &random)
        case 3: return quoted(pick(strings, &random))
        case 4: return pick(numbers, &random)
        case 5: return "[" + (0..<Int(random.next() % 25)).map { _ in value(random: &random, depth: depth + 1) }.joined(separator: ",") + "]"
        default:
            return "{"
                + (0..<Int(random.next() % 4)).map { _ in quoted(pick(keys, &random)) + ":" + value(random: &random, depth: depth + 1) }.joined(
                    separator: ",") + "}"
        }
    }

    static func pick<T>(_ values: [T], _ random: inout SplitMix64) -> T { values[Int(random.next() % UInt64(values.count))] }

    static func quoted(_ text: String) -> String {
        String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }

    /// A flat JSON object's members as raw texts, in order (the valid bodies have no nested objects).
    static func members(of json: String) -> [(String, String)] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return [] }
        return object.keys.sorted().map { key in
            let value = object[key].flatMap { try? JSONSerialization.data(withJSONObject: $0, options: [.fragmentsAllowed]) }
            return (key, value.map { String(decoding: $0, as: UTF8.self) } ?? "null")
        }
    }

    static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { quoted($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }
}
