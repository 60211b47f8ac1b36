import ArgumentParser
import CustodianContracts
import Foundation
import NIOHTTP1

/// `custodian rotate jwt-key`: the access tokens' signing key, through the admin API (`/admin/v1/signing-keys`, an
/// owner's token; docs/operations.md, "Rotating the JWT signing key"). The answer is printed as the API gives it, and
/// what it means on standard error.
struct JWTKeyRotation: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jwt-key",
        abstract: "Publishes a new signing key for access tokens, lists the keys, or retires an old one.",
        discussion: """
            Without options: publishes a new key. Every gateway accepts it within the key set's max age \
            (CUSTODIAN_JWT_KEY_SET_MAX_AGE of auth, 60 s by default) and auth signs with it from twice that on; tokens the \
            old key signed still verify. Once they have expired (2 h after the new key took over), retire the old key with \
            --retire KID; with --force sooner, and the tokens it signed are then refused with 401. Needs an owner's token.
            """)

    @Flag(help: "List the keys (newest first) instead of rotating.") var list = false
    @Option(help: ArgumentHelp("Retire this key (its kid, from --list) instead of rotating.", valueName: "kid")) var retire: String?
    @Flag(help: "With --retire: retire it even though tokens it signed may still be valid (they are refused from then on).")
    var force = false
    @OptionGroup var api: AdminAPIOptions

    func validate() throws {
        if force && retire == nil { throw ValidationError("--force goes with --retire KID") }
        if list && retire != nil { throw ValidationError("--list and --retire do not go together") }
        if let retire, retire.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--retire needs a key's kid (see --list)") }
    }

    func run() async throws {
        if list {
            print(String(decoding: try await keys(), as: UTF8.self))
        } else if let retire {
            try await retireKey(retire)
        } else {
            try await rotate()
        }
    }

    private func rotate() async throws {
        let (status, answer) = try await api.send(.POST, "/admin/v1/signing-keys")
        guard status == .created else { throw AdminAPIOptions.refusal("rotating the signing key", status: status, answer: answer) }
        print(String(decoding: answer, as: UTF8.self))
        let published = try JSONDecoder().decode(SigningKeyInfo.self, from: answer)
        let list = try JSONDecoder().decode(SigningKeyList.self, from: try await keys())
        var lines = [
            "published key \(published.kid): every gateway accepts it within \(list.key_set_max_age) s, and auth signs with it from "
                + "\(published.signs_from)"
        ]
        if let previous = list.keys.first(where: { $0.state == .signing }), let retirable = previous.retirable_at {
            lines.append(
                "key \(previous.kid) signs until then; the last token it signs expires at \(retirable), when it can be retired: "
                    + "custodian rotate jwt-key --retire \(previous.kid)")
        }
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    private func retireKey(_ kid: String) async throws {
        let (status, answer) = try await api.send(.DELETE, "/admin/v1/signing-keys/\(AdminAPIOptions.segment(kid))" + (force ? "?force=true" : ""))
        guard status == .ok else { throw AdminAPIOptions.refusal("retiring key \(kid)", status: status, answer: answer) }
        print(String(decoding: answer, as: UTF8.self))
        let list = try JSONDecoder().decode(SigningKeyList.self, from: try await keys())
        FileHandle.standardError.write(
            Data("retired key \(kid): every gateway refuses the tokens it signed within \(list.key_set_max_age) s\n".utf8))
    }

    private func keys() async throws -> Data {
        let (status, answer) = try await api.send(.GET, "/admin/v1/signing-keys")
        guard status == .ok else { throw AdminAPIOptions.refusal("listing the signing keys", status: status, answer: answer) }
        return answer
    }
}
