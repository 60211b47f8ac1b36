import CustodianRPC

extension RPCTLS {
    /// Mutual TLS from `CUSTODIAN_RPC_TLS_CA`, `_CERTIFICATE` and `_KEY`; nil when none is set.
    public init?(configuration: Configuration) throws {
        let keys = [RuntimeKey.rpcTLSCA, RuntimeKey.rpcTLSCertificate, RuntimeKey.rpcTLSKey]
        let values = keys.map { configuration[$0] }
        guard values.contains(where: { $0 != nil }) else { return nil }
        guard let ca = values[0], let certificate = values[1], let key = values[2] else {
            throw ConfigurationError(message: "set all of \(keys.joined(separator: ", ")) (or their _FILE forms), or none")
        }
        do {
            try self.init(caPEM: ca, certificatePEM: certificate, keyPEM: key)
        } catch {
            throw ConfigurationError(message: "the RPC TLS material cannot be used: \(error)")
        }
    }
}
