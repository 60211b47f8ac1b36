/// What can be wrong with a route, a nonce or a QR text on the client side.
public enum RouteFormatError: Error, Equatable, CustomStringConvertible {
    case invalidNonce
    case invalidQRText
    /// The blob is shorter than its header and tag, or of a version this library does not know.
    case unsupportedBlob
    /// The tag did not verify: a wrong passphrase, a wrong nonce, or a damaged blob (indistinguishable by design).
    case cannotOpen
    case keyDerivationFailed
    case emptyPassphrase
    case invalidTracks(String)

    public var description: String {
        switch self {
        case .invalidNonce: "a route nonce is 32 hex digits (16 bytes)"
        case .invalidQRText: "a route QR text is <unix time>-<32 hex digits>"
        case .unsupportedBlob: "the data is not an encrypted route of a known version"
        case .cannotOpen: "the route does not open: wrong passphrase or nonce, or damaged data"
        case .keyDerivationFailed: "Argon2id could not derive the key (out of memory?)"
        case .emptyPassphrase: "the passphrase is empty"
        case .invalidTracks(let problem): "the tracks are not valid: \(problem)"
        }
    }
}
