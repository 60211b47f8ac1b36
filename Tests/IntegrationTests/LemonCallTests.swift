import Crypto
import CustodianLemon
import Foundation
import ProcessTestSupport
import Testing

/// A command's exit status with its standard output and standard error apart, for commands whose stdout is meant
/// for other programs.
struct SeparatedOutput: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String

    static func run(_ executable: String, _ arguments: [String]) async throws -> SeparatedOutput {
        let result = try await CommandRunner.run(executable, arguments, together: false)
        return SeparatedOutput(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }
}

extension PlatformTests {
    /// `custodian lemon call`: the handshake and sealing an app does, from a shell, against the running platform.
    @Suite("custodian lemon call: sealed calls from the command line", .serialized)
    struct LemonCall {
        /// A fresh identity path in a directory that does not exist yet.
        static func identityPath() -> String {
            NSTemporaryDirectory() + "cit-lemon-\(UUID().uuidString.prefix(8))/lemon-identity.json"
        }

        static func call(_ arguments: [String], identity: String, keys: String? = nil) async throws -> SeparatedOutput {
            let platform = try platform
            var all =
                ["lemon", "call"] + arguments + [
                    "--server", platform.baseURL, "--ca-file", platform.dataDirectory + "/tls/cert.pem", "--identity", identity,
                ]
            if let keys { all += ["--keys", keys] }
            return try await SeparatedOutput.run(platform.binaries + "/custodian", all)
        }

        static func envelope(_ output: SeparatedOutput) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any], "\(output.stdout)")
        }

        static func appHash(_ identity: String) throws -> String {
            let file = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: identity))) as? [String: String])
            let appId = try #require(file["app_id"])
            return SHA256.hash(data: Data(appId.utf8)).map { String(format: "%02x", $0) }.joined()
        }

        @Test func theFirstCallRegistersAndKeepsTheIdentityTheNextReuseIt() async throws {
            let platform = try platform
            let identity = Self.identityPath()
            defer { try? FileManager.default.removeItem(atPath: (identity as NSString).deletingLastPathComponent) }

            let first = try await Self.call(["GET", "/api/v1/symptoms"], identity: identity)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stderr.contains("registered a new app instance; its identity is in \(identity)"), "\(first.stderr)")
            #expect(first.stderr.contains("200 OK (sealed)"), "\(first.stderr)")
            let answer = try Self.envelope(first)
            #expect((answer["meta"] as? [String: Any])?["success"] as? Bool == true)
            let symptoms = try #require(answer["data"] as? [[String: String]])
            #expect(symptoms.first { $0["key"] == "question_positive_symptom-1" }?["value"] == "Sore throat")
            // Pretty-printed, in the server's key order.
            #expect(first.stdout.hasPrefix("{\n  \"data\": [\n    {\n      \"key\": \"question_positive_symptom-1\",\n"), "\(first.stdout)")

            // The identity: only its owner may read it; the server knows the instance once, by hash.
            let attributes = try FileManager.default.attributesOfItem(atPath: identity)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let text = try String(contentsOfFile: identity, encoding: .utf8)
            #expect(
                text.contains("\"private_key\" : \"-----BEGIN PRIVATE KEY-----") && text.contains("\"server\" : \"\(platform.baseURL)\""), "\(text)")
            let hash = try Self.appHash(identity)
            let app = "(SELECT id FROM auth.lemon_apps WHERE encode(app_id_hash, 'hex') = '\(hash)')"
            #expect(try platform.sql("SELECT count(*) FROM auth.lemon_apps WHERE encode(app_id_hash, 'hex') = '\(hash)'") == "1")
            #expect(try platform.sql("SELECT count(*) FROM auth.lemon_sessions WHERE app_id = \(app)") == "1")

            // The second call authenticates the same instance in a new session: no registration, the file unchanged.
            let second = try await Self.call(["get", "/api/v1/symptoms?language=de"], identity: identity)
            #expect(second.status == 0, "\(second.stderr)")
            #expect(!second.stderr.contains("registered"), "\(second.stderr)")
            let german = try #require(try Self.envelope(second)["data"] as? [[String: String]])
            #expect(german.first { $0["key"] == "question_positive_symptom-1" }?["value"] == "Halsschmerzen")
            #expect(try String(contentsOfFile: identity, encoding: .utf8) == text)
            #expect(try platform.sql("SELECT count(*) FROM auth.lemon_apps WHERE encode(app_id_hash, 'hex') = '\(hash)'") == "1")
            #expect(try platform.sql("SELECT count(*) FROM auth.lemon_sessions WHERE app_id = \(app)") == "2")

            // The route's own error, sealed and shown opened; the exit status says it failed.
            let refused = try await Self.call(["GET", "/api/v1/symptoms?language=xx"], identity: identity)
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("400 Bad Request (sealed)"), "\(refused.stderr)")
            let meta = try #require(try Self.envelope(refused)["meta"] as? [String: Any])
            #expect(meta["success"] as? Bool == false && meta["code"] as? Int == 400)
            #expect(meta["message"] as? String == "Invalid Alpha2 'xx': not a supported language")

            // A body from a file, sealed; the survey's rule answers in the envelope.
            let survey = NSTemporaryDirectory() + "cit-survey-\(UUID().uuidString).json"
            defer { try? FileManager.default.removeItem(atPath: survey) }
            try #"{"Status":"Negative","Symptoms":["question_positive_symptom-1"]}"#.write(toFile: survey, atomically: true, encoding: .utf8)
            let submitted = try await Self.call(["POST", "/api/v1/submission/covid", "@" + survey], identity: identity)
            #expect(submitted.status == 1 && submitted.stderr.contains("400 Bad Request (sealed)"), "\(submitted.stderr)")
            let surveyMeta = try #require(try Self.envelope(submitted)["meta"] as? [String: Any])
            #expect(surveyMeta["message"] as? String == "Invalid message structure for specified status: Negative does not take Symptoms")

            // Deleting the instance deletes its identity too; the next call registers a new one.
            let deleted = try await Self.call(["DELETE", "/api/v1/devices"], identity: identity)
            #expect(deleted.status == 0, "\(deleted.stderr)")
            #expect(!FileManager.default.fileExists(atPath: identity))
            #expect(try platform.sql("SELECT count(*) FROM auth.lemon_apps WHERE encode(app_id_hash, 'hex') = '\(hash)'") == "0")
            let again = try await Self.call(["GET", "/api/v1/languages?language=de"], identity: identity)
            #expect(again.status == 0 && again.stderr.contains("registered a new app instance"), "\(again.stderr)")
            #expect(try Self.appHash(identity) != hash)
        }

        @Test func pinnedKeysComeFromAFileAndAServerSignatureThatDoesNotMatchThemIsRefused() async throws {
            let platform = try platform
            let identity = Self.identityPath()
            defer { try? FileManager.default.removeItem(atPath: (identity as NSString).deletingLastPathComponent) }
            let shown = try await SeparatedOutput.run(
                platform.binaries + "/custodian",
                [
                    "lemon", "keys", "show", "--file", platform.dataDirectory + "/secrets/lemon-keys.json",
                ])
            try #require(shown.status == 0, "\(shown.stderr)")
            let keys = NSTemporaryDirectory() + "cit-keys-\(UUID().uuidString).json"
            defer { try? FileManager.default.removeItem(atPath: keys) }
            try shown.stdout.write(toFile: keys, atomically: true, encoding: .utf8)
            let pinned = try await Self.call(["GET", "/api/v1/countries?country=za"], identity: identity, keys: keys)
            #expect(pinned.status == 0, "\(pinned.stderr)")
            #expect(try Self.envelope(pinned)["data"] as? [String: String] == ["Alpha2": "ZA", "Name": "South Africa"])

            // The right encryption key but another signing key: the server answers, and its answer is not trusted.
            var published = try JSONDecoder().decode([ServerPublicKey].self, from: Data(shown.stdout.utf8))
            published[0].signingKey = P256.Signing.PrivateKey().publicKey.derRepresentation.base64EncodedString()
            try JSONEncoder().encode(published).write(to: URL(fileURLWithPath: keys))
            let forged = try await Self.call(["GET", "/api/v1/countries?country=za"], identity: identity, keys: keys)
            #expect(forged.status == 1)
            #expect(forged.stderr.contains("the server's signature does not match its pinned key"), "\(forged.stderr)")
            #expect(forged.stdout.isEmpty)
        }

        @Test func anUnknownMethodOrAPathOutsideTheAPIIsAUsageError() async throws {
            let identity = Self.identityPath()
            for (arguments, message) in [
                (["PUT", "/api/v1/symptoms"], "METHOD is GET, POST or DELETE (the methods of the tracing API), not 'PUT'"),
                (["GET", "/admin/v1/statistics/submissions"], "PATH is a route of the tracing API, under /api/v1/"),
                (["GET", "/api/v1/../../admin/v1/qr"], "PATH must not hold '.' or '..' segments"),
                (["GET", "/api/v1/symptoms", "{}"], "GET requests of the tracing API have no body"),
                (["POST", "/api/v1/submission/covid", "{Status: Positive}"], "BODY is not JSON"),
            ] {
                let refused = try await Self.call(arguments, identity: identity)
                #expect(refused.status == 64, "\(arguments): \(refused.stderr)")
                #expect(refused.stderr.contains("Error: \(message)"), "\(refused.stderr)")
                #expect(refused.stderr.contains("Usage: custodian lemon call <method> <path> [<body>]"), "\(refused.stderr)")
                #expect(refused.stdout.isEmpty)
            }
            #expect(!FileManager.default.fileExists(atPath: identity), "a refused call registered nothing")
        }
    }
}
