import CustodianRPC
import CustodianRuntime
import Foundation

extension Deployment {
    /// The cluster's own CA for RPC over TCP (`<secrets>/rpc-ca/`, made once; its key never leaves this folder), and
    /// for each process `<secrets>/<process>/rpc/`: the CA's certificate and the process's certificate and key, naming
    /// it (`devices`, `devices-rpc`, and `devices-rpc.<domain>` for each domain). Certificates already issued are kept;
    /// remove a process's `rpc/` folder to issue it a new one.
    static func rpcCertificates(secretsDirectory: String, domains: [String]) throws {
        let authorityFolder = secretsDirectory + "/rpc-ca"
        try Files.makeDirectory(authorityFolder)
        let authority: ClusterCertificates
        if let certificate = Files.read(authorityFolder + "/ca.pem"), let key = Files.read(authorityFolder + "/ca-key.pem") {
            authority = try ClusterCertificates(certificatePEM: certificate, keyPEM: key)
        } else {
            authority = try ClusterCertificates()
            try Files.write(authority.keyPEM, to: authorityFolder + "/ca-key.pem")
            try Files.write(authority.certificatePEM, to: authorityFolder + "/ca.pem", mode: 0o644)
        }
        // During a rotation (`custodian rotate rpc-ca`), every process trusts the next CA too.
        let next = Files.read(authorityFolder + "/next/ca.pem").map { "\n" + $0 } ?? ""
        for process in Platform.services + ["gateway"] {
            let folder = "\(secretsDirectory)/\(process)/rpc"
            try Files.makeDirectory(folder, mode: 0o711)
            try Files.write(authority.certificatePEM + next, to: folder + "/ca.pem", mode: 0o644)
            if FileManager.default.fileExists(atPath: folder + "/cert.pem"), FileManager.default.fileExists(atPath: folder + "/key.pem") { continue }
            let (certificate, key) = try authority.issue([process, "\(process)-rpc"] + domains.map { "\(process)-rpc.\($0)" })
            try Files.write(key, to: folder + "/key.pem")
            try Files.write(certificate, to: folder + "/cert.pem", mode: 0o644)
        }
    }
}
