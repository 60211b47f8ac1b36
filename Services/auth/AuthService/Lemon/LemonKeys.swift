import CustodianLemon
import CustodianRuntime

/// The server's handshake keys (`CUSTODIAN_LEMON_KEYS` or `_FILE`, made by `custodian up` / `setup`,
/// rotated with `custodian lemon keys rotate`), and their public halves as `GET /api/v1/keys` shows them.
enum LemonKeys {
    static func published(_ keys: [ServerKey]) -> PublishedKeys {
        PublishedKeys(currentKeyId: keys[0].id, keys: keys.map(\.publicKey))
    }
}

struct PublishedKeys: Codable, Sendable {
    /// The generation that signs handshake answers now; the others still open pre-master secrets.
    var currentKeyId: String
    var keys: [ServerPublicKey]

    enum CodingKeys: String, CodingKey { case currentKeyId = "CurrentKeyId", keys = "Keys" }
}
