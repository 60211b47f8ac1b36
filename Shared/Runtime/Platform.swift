/// The domain services that make up Custodian; the gateway checks them all for readiness and
/// `custodian up`/`setup` give each a database role and schema.
public enum Platform {
    public static let services = ["auth", "vault", "routes", "devices", "statistics", "links"]
}
