import Crypto
import CustodianLemon
import Foundation
import LemonClient
import Testing

@testable import CustodianCommands

/// `custodian lemon call`: what it refuses before a handshake, and the files it reads and keeps.
@Suite("lemon call")
struct LemonCallTests {
    @Test func onlyTheTracingAPIsMethodsAndRoutesAreCalled() async {
        #expect(
            await failure(["lemon", "call", "PUT", "/api/v1/symptoms"])
                == "METHOD is GET, POST or DELETE (the methods of the tracing API), not 'PUT'")
        #expect(
            await failure(["lemon", "call", "GET", "/admin/v1/tokens"])
                == "PATH is a route of the tracing API, under /api/v1/ (for example /api/v1/symptoms), not '/admin/v1/tokens'")
        #expect(
            await failure(["lemon", "call", "GET", "/api/v1/symptoms?language=de en"])
                == "PATH holds spaces or other characters that must be percent-encoded: '/api/v1/symptoms?language=de en'")
        #expect(
            await failure(["lemon", "call", "GET", "/api/v1/a#b"])
                == "PATH holds spaces or other characters that must be percent-encoded: '/api/v1/a#b'")
        #expect(
            await failure(["lemon", "call", "get", "/api/v1/symptoms", "{}"])
                == "GET requests of the tracing API have no body; give parameters in PATH's query")
    }

    /// Dot segments, percent-encoded or not, would climb out of /api/v1/ once the server resolves them.
    @Test func dotSegmentsAreRefused() throws {
        for path in ["/api/v1/../../admin/v1/tokens", "/api/v1/./symptoms", "/api/v1/%2e%2e/%2E%2E/admin", "/api/v1/%2e/x"] {
            let error = #expect(throws: (any Error).self, "\(path)") { try Lemon.Call.checkPath(path) }
            #expect(error.map(Lemon.Call.message(for:)) == "PATH must not hold '.' or '..' segments: '\(path)'")
        }
        // A dot inside a segment is a name, not a step up.
        try Lemon.Call.checkPath("/api/v1/files/report..v2.json?x=../y")
    }

    @Test func theBodyIsCheckedAsJSONBeforeItIsSealed() async throws {
        #expect(try Lemon.Call.readBody(#"{"symptoms":[1,2]}"#) == Data(#"{"symptoms":[1,2]}"#.utf8))
        #expect(try Lemon.Call.readBody("42") == Data("42".utf8))
        let error = #expect(throws: (any Error).self) { try Lemon.Call.readBody("{symptoms: 1}") }
        #expect(error.map(Lemon.Call.message(for:)) == "BODY is not JSON: {symptoms: 1}")
        try await withTemporaryDirectory { folder in
            try #"{"a":true}"#.write(toFile: folder + "/body.json", atomically: true, encoding: .utf8)
            #expect(try Lemon.Call.readBody("@" + folder + "/body.json") == Data(#"{"a":true}"#.utf8))
            let missing = #expect(throws: (any Error).self) { try Lemon.Call.readBody("@" + folder + "/none.json") }
            #expect(missing.map(Lemon.Call.message(for:)) == "cannot read the body file \(folder)/none.json")
        }
    }

    static let first = ServerPublicKey(keyId: "2026-01", encryptionKey: "RVNB", signingKey: "U0lH")
    static let second = ServerPublicKey(keyId: "2026-02", encryptionKey: "RVNCMg==", signingKey: "U0lHMg==")

    /// `--keys` takes any of the three files that hold them, and the current key comes first whatever their order.
    @Test func pinnedKeysAreReadFromAnyOfTheirFiles() async throws {
        try await withTemporaryDirectory { folder in
            let list = folder + "/keys.json"
            try JSONEncoder().encode([Self.second, Self.first]).write(to: URL(fileURLWithPath: list))
            #expect(try Lemon.Call.readKeys(list) == [Self.second, Self.first])

            let published = folder + "/published.json"
            let keys = String(decoding: try JSONEncoder().encode([Self.first, Self.second]), as: UTF8.self)
            try #"{"data":{"CurrentKeyId":"2026-02","Keys":\#(keys)}}"#.write(toFile: published, atomically: true, encoding: .utf8)
            #expect(try Lemon.Call.readKeys(published) == [Self.second, Self.first])

            var serverFile = try ServerKeyFile.generate(id: "2026-01")
            try serverFile.rotate(newID: "2026-02")
            serverFile.current = "2026-01"
            let server = folder + "/lemon-keys.json"
            try serverFile.json().write(toFile: server, atomically: true, encoding: .utf8)
            #expect(try Lemon.Call.readKeys(server).map(\.keyId) == ["2026-01", "2026-02"])

            let junk = folder + "/junk.json"
            try #"{"keys":[]}"#.write(toFile: junk, atomically: true, encoding: .utf8)
            let error = #expect(throws: CLIError.self) { try Lemon.Call.readKeys(junk) }
            #expect(error?.description.hasPrefix("\(junk) holds no server keys") == true)
        }
    }
}

/// The app instance `lemon call` registers is kept like a phone keeps it: private, never overwritten.
@Suite("lemon call: the identity file")
struct LemonIdentityTests {
    @Test func theIdentityIsSavedForItsOwnerOnlyAndReadBack() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder + "/nested/lemon-identity.json"
            #expect(try LemonIdentity.load(path) == nil)
            let identity = LemonIdentity(app: .generate(), server: "https://127.0.0.1:8443")
            try identity.save(to: path)
            #expect(try mode(path) == 0o600)
            let loaded = try #require(try LemonIdentity.load(path))
            #expect(loaded.appId == identity.appId && loaded.server == identity.server)
            #expect(try loaded.app().privateKey.rawRepresentation == identity.app().privateKey.rawRepresentation)
            // Another call registering at the same moment keeps its own file.
            let error = #expect(throws: CLIError.self) { try LemonIdentity(app: .generate(), server: "https://other").save(to: path) }
            #expect(error?.description.hasPrefix("cannot create the identity file \(path): File exists") == true)
            #expect(try LemonIdentity.load(path)?.appId == identity.appId)
        }
    }

    @Test func aFileThatIsNoIdentityIsNamedWithWhatToDo() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder + "/lemon-identity.json"
            try #"{"app_id":"x"}"#.write(toFile: path, atomically: true, encoding: .utf8)
            let error = #expect(throws: CLIError.self) { try LemonIdentity.load(path) }
            #expect(error?.description.hasPrefix("\(path) is not an identity `custodian lemon call` wrote") == true)
            #expect(error?.description.hasSuffix("move it away to register a new app instance") == true)
        }
    }
}

/// `custodian lemon keys`: the server's key generations.
@Suite("lemon keys")
struct LemonKeysTests {
    @Test func rotatingAddsAGenerationAndMakesItCurrent() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder + "/lemon-keys.json"
            try ServerKeyFile.generate(id: "2026-01").json().write(toFile: path, atomically: true, encoding: .utf8)
            #expect(await failure(["lemon", "keys", "rotate", "--file", path, "--id", "2026-02"]) == nil)
            let rotated = try ServerKeyFile(json: String(contentsOfFile: path, encoding: .utf8))
            #expect(rotated.current == "2026-02")
            #expect(rotated.keys.map(\.id) == ["2026-01", "2026-02"])
            #expect(try mode(path) == 0o600)
            // A generation's id is never given twice.
            #expect(
                await failure(["lemon", "keys", "rotate", "--file", path, "--id", "2026-01"])
                    == "LEMON server key file: key id 2026-01 exists already")
        }
    }

    /// Named by month, with a suffix when that month has a generation already.
    @Test func newGenerationsAreNamedByMonth() throws {
        let month = LemonKeyID.new()
        #expect(try Regex(#"^\d{4}-\d{2}$"#).wholeMatch(in: month) != nil)
        #expect(LemonKeyID.new(avoiding: [month]) == month + "-2")
        #expect(LemonKeyID.new(avoiding: [month, month + "-2"]) == month + "-3")
        #expect(LemonKeyID.new(avoiding: ["1999-01"]) == month)
    }

    @Test func aMissingKeyFileIsNamed() async {
        #expect(
            await failure(["lemon", "keys", "show", "--file", "/nonexistent/lemon-keys.json"])
                == "cannot read the key file /nonexistent/lemon-keys.json")
    }
}
