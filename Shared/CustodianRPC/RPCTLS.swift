import NIOCore
import NIOSSL
import NIOTLS
import SwiftASN1
import X509

/// Mutual TLS for RPC over TCP, where calls cross a network: every process holds a certificate of the cluster's own CA
/// naming it (a subject alternative DNS name: `devices`, `gateway`), servers accept only clients with such a
/// certificate, and clients accept only a server whose certificate names the service they meant to call. Unix sockets
/// stay as they are: the kernel already limits them to this machine's user.
public struct RPCTLS: Sendable {
    let serverContext: NIOSSLContext
    let clientContext: NIOSSLContext

    /// PEM texts: the cluster CA's certificate, this process's certificate (and chain) and its private key.
    public init(caPEM: String, certificatePEM: String, keyPEM: String) throws {
        let authority = try NIOSSLCertificate.fromPEMBytes(Array(caPEM.utf8))
        let chain = try NIOSSLCertificate.fromPEMBytes(Array(certificatePEM.utf8)).map { NIOSSLCertificateSource.certificate($0) }
        let key = NIOSSLPrivateKeySource.privateKey(try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem))
        var server = TLSConfiguration.makeServerConfigurationWithMTLS(certificateChain: chain, privateKey: key, trustRoots: .certificates(authority))
        server.minimumTLSVersion = .tlsv13
        var client = TLSConfiguration.makeClientConfiguration()
        client.certificateChain = chain
        client.privateKey = key
        client.trustRoots = .certificates(authority)
        client.certificateVerification = .fullVerification
        client.minimumTLSVersion = .tlsv13
        serverContext = try NIOSSLContext(configuration: server)
        clientContext = try NIOSSLContext(configuration: client)
    }

    /// The names a certificate gives its holder: its subject alternative DNS names.
    static func names(of certificate: NIOSSLCertificate) -> [String] {
        guard let parsed = try? Certificate(derEncoded: certificate.toDERBytes()),
            let alternatives = try? parsed.extensions.subjectAlternativeNames
        else { return [] }
        return alternatives.compactMap { name in
            if case .dnsName(let text) = name { text } else { nil }
        }
    }
}

/// Lets a connection's bytes through once the client's certificate (checked against the cluster CA by the TLS
/// handler before it) names a caller this service accepts; closes the connection otherwise, before any call is read.
final class CallerCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let allowed: Set<String>?
    private var admitted = false

    init(allowed: Set<String>?) {
        self.allowed = allowed
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let tls = event as? TLSUserEvent, case .handshakeCompleted = tls {
            if let allowed {
                let peer = try? context.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self).peerCertificate
                guard let peer, RPCTLS.names(of: peer).contains(where: allowed.contains) else {
                    context.close(promise: nil)
                    return
                }
            }
            admitted = true
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard admitted else { return }
        context.fireChannelRead(data)
    }
}
