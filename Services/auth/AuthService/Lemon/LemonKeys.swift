import CustodianContracts
import CustodianLemon
import CustodianRuntime

/// The server's handshake keys (`CUSTODIAN_LEMON_KEYS` or `_FILE`, made by `custodian up` / `setup`,
/// rotated with `custodian lemon keys rotate`), and their public halves as `GET /api/v1/keys` shows them.
enum LemonKeys {
    static func published(_ keys: [ServerKey]) -> LemonPublishedKeys {
        LemonPublishedKeys(
            currentKeyId: keys[0].id,
            keys: keys.map(\.publicKey).map { .init(keyId: $0.keyId, encryptionKey: $0.encryptionKey, signingKey: $0.signingKey) })
    }
}
