import ArgumentParser
import CustodianRPC
import CustodianRuntime
import Foundation
import X509

/// `custodian rotate rpc-ca begin|issue|finish`: replaces the cluster CA of mutual-TLS RPC (and every process's
/// certificate with it) with an overlap, so that no two processes ever fail to trust each other while the deployment
/// rolls its processes between the steps (docs/operations.md, "Rotating the RPC certificates and the cluster CA"):
///
/// - `begin`: a new CA in `<secrets>/rpc-ca/next/`; every process's `rpc/ca.pem` trusts both CAs.
/// - `issue`: every process gets a certificate of the new CA, naming it as its old one did.
/// - `finish`: the new CA becomes the CA (the old one is kept aside in `rpc-ca/retired-<time>/`) and every process
///   trusts it alone.
///
/// Each step works on `custodian setup`'s secrets folder; after each, roll every process (Kubernetes: `kubectl rollout
/// restart deployment`, one pod at a time) before the next step.
struct RotateRPCAuthority: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rpc-ca",
        abstract: "Replaces the cluster CA of mutual-TLS RPC and every process's certificate, in three steps with an overlap.")

    enum Step: String, ExpressibleByArgument, CaseIterable {
        case begin, issue, finish
    }

    @Argument(help: "begin, issue or finish; roll every process after each.") var step: Step
    @Option(help: "The secrets folder of `custodian setup`.") var secretsDir = "/secrets"

    func run() async throws {
        let rotation = RPCAuthorityRotation(secretsDirectory: Files.absolute(secretsDir))
        switch step {
        case .begin: try rotation.begin()
        case .issue: try rotation.issue()
        case .finish: try rotation.finish(at: Date())
        }
        print(
            "rpc-ca     \(step.rawValue): done; roll every process (\((Platform.services + ["gateway"]).joined(separator: ", "))) before the next step"
        )
    }
}

/// The files of the three steps, in a `custodian setup` secrets folder.
struct RPCAuthorityRotation {
    let secretsDirectory: String

    var current: String { secretsDirectory + "/rpc-ca" }
    var next: String { current + "/next" }
    static let processes = Platform.services + ["gateway"]

    func processFolder(_ process: String) -> String { "\(secretsDirectory)/\(process)/rpc" }

    func authority(in folder: String) throws -> ClusterCertificates {
        guard let certificate = Files.read(folder + "/ca.pem"), let key = Files.read(folder + "/ca-key.pem") else {
            throw CLIError("\(folder) holds no CA (ca.pem and ca-key.pem); run `custodian setup` first")
        }
        return try ClusterCertificates(certificatePEM: certificate, keyPEM: key)
    }

    func begin() throws {
        let old = try authority(in: current)
        guard !FileManager.default.fileExists(atPath: next + "/ca.pem") else {
            throw CLIError("a rotation has begun already (\(next)); go on with `issue`, then `finish`")
        }
        // A name of its own: two CAs of one name in a trust store are told apart by name first.
        let new = try ClusterCertificates(name: "Custodian cluster CA \(Date().formatted(.iso8601))")
        try Files.makeDirectory(next)
        try Files.write(new.keyPEM, to: next + "/ca-key.pem")
        try Files.write(new.certificatePEM, to: next + "/ca.pem", mode: 0o644)
        try trust([old, new])
    }

    func issue() throws {
        let new = try authority(in: next)
        for process in Self.processes {
            let folder = processFolder(process)
            guard let text = Files.read(folder + "/cert.pem") else { throw CLIError("\(folder)/cert.pem is missing; run `custodian setup` first") }
            let names = try Self.names(inPEM: text)
            guard !names.isEmpty else { throw CLIError("\(folder)/cert.pem names no one") }
            let (certificate, key) = try new.issue(names)
            try Files.write(key, to: folder + "/key.pem")
            try Files.write(certificate, to: folder + "/cert.pem", mode: 0o644)
        }
    }

    func finish(at now: Date) throws {
        let new = try authority(in: next)
        // Every process must hold a certificate of the new CA by now, or it would trust no one and no one it.
        for process in Self.processes {
            let text = Files.read(processFolder(process) + "/cert.pem") ?? ""
            guard try Certificate(pemEncoded: text).issuer == Certificate(pemEncoded: new.certificatePEM).subject else {
                throw CLIError("\(process) still holds a certificate of the old CA: run `custodian rotate rpc-ca issue` and roll every process first")
            }
        }
        let retired = current + "/retired-" + now.formatted(.iso8601).replacingOccurrences(of: ":", with: "")
        try Files.makeDirectory(retired)
        for file in ["ca.pem", "ca-key.pem"] {
            try FileManager.default.moveItem(atPath: current + "/" + file, toPath: retired + "/" + file)
            try FileManager.default.moveItem(atPath: next + "/" + file, toPath: current + "/" + file)
        }
        try FileManager.default.removeItem(atPath: next)
        try trust([new])
    }

    /// Every process's `ca.pem`: the certificates of `authorities`, one after another.
    func trust(_ authorities: [ClusterCertificates]) throws {
        let bundle = authorities.map { $0.certificatePEM.hasSuffix("\n") ? $0.certificatePEM : $0.certificatePEM + "\n" }.joined()
        for process in Self.processes {
            try Files.makeDirectory(processFolder(process), mode: 0o711)
            try Files.write(bundle, to: processFolder(process) + "/ca.pem", mode: 0o644)
        }
    }

    /// The DNS names a PEM certificate gives its holder.
    static func names(inPEM text: String) throws -> [String] {
        let certificate = try Certificate(pemEncoded: text)
        guard let alternatives = try certificate.extensions.subjectAlternativeNames else { return [] }
        return alternatives.compactMap { name in
            if case .dnsName(let text) = name { text } else { nil }
        }
    }
}
