import ArgumentParser
import CustodianContracts
import Foundation
import NIOHTTP1

/// `custodian erase KIND ID` and `custodian detach DEVICE`: the erasure routes of the admin API (docs/erasure.md),
/// with the receipt printed as the API answers it and a summary on standard error. Scopes and the audit log are the
/// API's: the token's identity is the one on record.
struct Erase: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Erases a participant's data, or revokes an API consumer or a short link, and prints the receipt.",
        discussion: """
            account (a Twomes pseudonym), device (a Twomes device with every reading it took), opensense-device, vault-user \
            and lemon-app (a tracing app's device id, with its survey submissions) erase a participant's data and need an owner's \
            token; consumer and link revoke an API consumer or a short link and need an operator's. Erasing what is gone \
            already answers a receipt of zeros. Detach a device from its account with `custodian detach`.
            """)

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case account, device, opensenseDevice = "opensense-device", vaultUser = "vault-user", lemonApp = "lemon-app", consumer, link

        /// The route's path for `id`.
        func target(_ id: String) -> String {
            let segment = AdminAPIOptions.segment(id)
            return switch self {
            case .account: "/admin/v1/accounts/\(segment)"
            case .device: "/admin/v1/devices/\(segment)"
            case .opensenseDevice: "/admin/v1/opensense/devices/\(segment)"
            case .vaultUser: "/admin/v1/vault/users/\(segment)"
            case .lemonApp: "/admin/v1/lemon/apps/\(segment)"
            case .consumer: "/admin/v1/api-consumers/\(segment)"
            case .link: "/admin/v1/links/\(segment)"
            }
        }
    }

    @Argument(help: "What to erase: \(Kind.allCases.map(\.rawValue).joined(separator: ", ")).") var kind: Kind
    @Argument(help: "Its id: a pseudonym, a device id, a user id, a consumer key or a link code.") var id: String
    @OptionGroup var api: AdminAPIOptions

    func run() async throws {
        let (status, answer) = try await api.send(.DELETE, kind.target(id))
        guard status == .ok else { throw AdminAPIOptions.refusal("the erasure", status: status, answer: answer) }
        print(String(decoding: answer, as: UTF8.self))
        FileHandle.standardError.write(Data((Self.summary(answer) + "\n").utf8))
    }

    /// One line from a receipt: what went, by kind, or that nothing was left.
    static func summary(_ answer: Data) -> String {
        guard let receipt = try? JSONDecoder().decode(ErasureReceipt.self, from: answer) else { return "erased (the receipt could not be read)" }
        let counts = receipt.deleted.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        let target = "\(receipt.target) \(receipt.id)"
        return receipt.erasedAnything ? "erased \(target): \(counts.joined(separator: ", "))" : "nothing was left of \(target)"
    }
}

struct Detach: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detaches a Twomes device from its account, for deploying it with another; its readings stay with the account.",
        discussion: "Needs an operator's token. The device's session token is revoked; the label's activation token attaches it again.")

    @Argument(help: "The device's name.") var device: String
    @OptionGroup var api: AdminAPIOptions

    func run() async throws {
        let (status, answer) = try await api.send(.POST, "/admin/v1/devices/\(AdminAPIOptions.segment(device))/detach")
        guard status == .ok else { throw AdminAPIOptions.refusal("detaching \(device)", status: status, answer: answer) }
        print(String(decoding: answer, as: UTF8.self))
    }
}
