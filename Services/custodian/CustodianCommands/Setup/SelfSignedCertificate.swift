import Crypto
import Foundation
import SwiftASN1
import X509

/// A self-signed certificate for `localhost` and 127.0.0.1, so that `up` serves HTTPS out of the box.
enum SelfSignedCertificate {
    static func createIfMissing(certificatePath: String, keyPath: String) throws {
        guard !FileManager.default.fileExists(atPath: certificatePath) || !FileManager.default.fileExists(atPath: keyPath) else { return }
        let key = P256.Signing.PrivateKey()
        let privateKey = Certificate.PrivateKey(key)
        let name = try DistinguishedName {
            CommonName("localhost"); OrganizationName("Custodian (self-signed)")
        }
        let now = Date()
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: privateKey.publicKey,
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(825 * 86400),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
                try ExtendedKeyUsage([.serverAuth])
            },
            issuerPrivateKey: privateKey)
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        let certificatePEM = PEMDocument(type: "CERTIFICATE", derBytes: serializer.serializedBytes).pemString
        try Files.write(key.pemRepresentation, to: keyPath)
        try Files.write(certificatePEM, to: certificatePath, mode: 0o644)
    }
}
