import ArgumentParser
import CustodianLemon
import Foundation

/// What `lemon call` reads before it calls: PATH checked, BODY and the keys to pin from where they were given.
extension Lemon.Call {
    static func checkPath(_ path: String) throws {
        guard path.hasPrefix("/api/v1/") else {
            throw ValidationError("PATH is a route of the tracing API, under /api/v1/ (for example /api/v1/symptoms), not '\(path)'")
        }
        guard path.unicodeScalars.allSatisfy({ (0x21..<0x7F).contains($0.value) }), !path.contains("#") else {
            throw ValidationError("PATH holds spaces or other characters that must be percent-encoded: '\(path)'")
        }
        // Dot segments would climb out of /api/v1/ once the server resolves them: other routes than asked for.
        let route = path.prefix { $0 != "?" }
        let segments = route.split(separator: "/", omittingEmptySubsequences: false).map { $0.removingPercentEncoding ?? String($0) }
        guard !segments.contains("."), !segments.contains("..") else {
            throw ValidationError("PATH must not hold '.' or '..' segments: '\(path)'")
        }
    }

    /// BODY as given, from a file (`@FILE`) or from standard input (`-`); JSON, checked here so that a typo is
    /// not sealed and sent.
    static func readBody(_ argument: String) throws -> Data {
        let data: Data
        if argument == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else if argument.hasPrefix("@") {
            let file = String(argument.dropFirst())
            guard let contents = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read the body file \(file)") }
            data = contents
        } else {
            data = Data(argument.utf8)
        }
        guard (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil else {
            throw ValidationError("BODY is not JSON: \(String(decoding: data.prefix(200), as: UTF8.self))")
        }
        return data
    }

    /// The keys to pin, current first, from any of the files that hold them.
    static func readKeys(_ path: String) throws -> [ServerPublicKey] {
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIError("cannot read the key file \(path)") }
        if let list = try? JSONDecoder().decode([ServerPublicKey].self, from: data) {
            return list
        }
        struct Published: Decodable {
            struct Keys: Decodable {
                var CurrentKeyId: String
                var Keys: [ServerPublicKey]
            }
            var data: Keys
        }
        if let published = try? JSONDecoder().decode(Published.self, from: data) {
            let keys = published.data.Keys
            return keys.filter { $0.keyId == published.data.CurrentKeyId } + keys.filter { $0.keyId != published.data.CurrentKeyId }
        }
        if let file = try? ServerKeyFile(json: String(decoding: data, as: UTF8.self)), let keys = try? file.serverKeys() {
            return keys.map(\.publicKey)
        }
        throw CLIError(
            "\(path) holds no server keys: give the JSON `custodian lemon keys show` prints, a GET /api/v1/keys answer, or a server key file")
    }
}
