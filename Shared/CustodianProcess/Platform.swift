/// The domain services that make up Custodian; the gateway checks them all for readiness and
/// `custodian up`/`setup` give each a database role and schema.
public enum Platform {
    public static let services = ["auth", "vault", "routes", "devices", "statistics", "links"]

    /// The services that read the deployment sealing key (`CUSTODIAN_SEALING_KEY`); no other process gets it.
    public static let sealingKeyReaders: Set<String> = ["auth", "devices", "vault", "routes", "links"]
    /// The services that read the tracing app's server keys (`CUSTODIAN_LEMON_KEYS`).
    public static let lemonKeyReaders: Set<String> = ["auth"]

    /// Who may call each service over RPC: the gateway, and the services whose definitions name it in `calls`
    /// (a test holds the two together). Over TCP with mutual TLS a service accepts no other caller.
    public static let callers: [String: Set<String>] = [
        "auth": ["gateway"],
        "vault": ["gateway", "auth"],
        "routes": ["gateway"],
        "devices": ["gateway"],
        "statistics": ["gateway", "auth"],
        "links": ["gateway", "devices", "vault"],
    ]
}
