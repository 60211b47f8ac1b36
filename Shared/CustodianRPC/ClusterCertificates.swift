import Crypto
import Foundation
import SwiftASN1
import X509

/// The cluster's own certificate authority for RPC over TCP, and the certificates it issues: each names its holder
/// (a service, or `gateway`) as a subject alternative DNS name, with any further names it is reached by
/// (`devices-rpc.custodian.svc`), and serves both as a server and as a client certificate.
public struct ClusterCertificates: Sendable {
    public let certificatePEM: String
    public let keyPEM: String
    private let certificate: Certificate
    private let key: P256.Signing.PrivateKey

    /// A new authority, valid for `days`.
    public init(name: String = "Custodian cluster CA", days: Int = 3650) throws {
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName(name) }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(Double(days) * 86400),
            issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        self.init(certificate: certificate, key: key)
    }

    /// The authority kept in PEM files.
    public init(certificatePEM: String, keyPEM: String) throws {
        try self.init(certificate: Certificate(pemEncoded: certificatePEM), key: P256.Signing.PrivateKey(pemRepresentation: keyPEM))
    }

    private init(certificate: Certificate, key: P256.Signing.PrivateKey) {
        self.certificate = certificate
        self.key = key
        self.certificatePEM = (try? certificate.serializeAsPEM().pemString) ?? ""
        self.keyPEM = key.pemRepresentation
    }

    /// A certificate for `names` (the first is its holder's identity), valid for `days`: its PEM and its key's.
    public func issue(_ names: [String], days: Int = 825) throws -> (certificatePEM: String, keyPEM: String) {
        precondition(!names.isEmpty, "a certificate names its holder")
        let holder = P256.Signing.PrivateKey()
        let now = Date()
        let issued = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(holder.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(Double(days) * 86400),
            issuer: certificate.subject, subject: try DistinguishedName { CommonName(names[0]) }, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                SubjectAlternativeNames(names.map { GeneralName.dnsName($0) })
                try ExtendedKeyUsage([.serverAuth, .clientAuth])
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        return (try issued.serializeAsPEM().pemString, holder.pemRepresentation)
    }

    /// Mutual TLS for the holder of `names`.
    public func tls(for names: [String]) throws -> RPCTLS {
        let (certificatePEM, keyPEM) = try issue(names)
        return try RPCTLS(caPEM: self.certificatePEM, certificatePEM: certificatePEM, keyPEM: keyPEM)
    }
}
