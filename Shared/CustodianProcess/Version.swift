/// The release every executable reports in `system.version` and `--version`.
public enum CustodianVersion {
    public static let current = "0.1.0"
    /// The JSON-RPC contract between gateway and services; bumped when a change is not backwards compatible.
    public static let rpcProtocol = 1
}
