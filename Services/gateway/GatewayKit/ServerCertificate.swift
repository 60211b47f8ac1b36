import Crypto
import Foundation
import Logging
import NIOSSL
import ServiceLifecycle
import Synchronization

/// The gateway's TLS certificate chain and key, read from their files and read again whenever they change, so that a
/// renewed certificate (cert-manager, certbot, a Secret the kubelet updates in place) is served without a restart
/// (docs/operations.md, "Renewing the TLS certificate"). Every few seconds both files are read and compared with the
/// pair in use; a changed pair that loads becomes the context of each connection accepted from then on, while the
/// connections open already keep the one they began with. A pair that does not load (half-written, a key that is not
/// the certificate's, a file missing) leaves the good one in place; when it is still there at the next check it is
/// logged, once. (A renewal that writes the two files one after the other is often caught between them: that is no
/// reason for a warning.)
final class ServerCertificate: Service, Sendable {
    let certificatePath: String
    let keyPath: String
    let interval: Duration
    private let logger: Logger
    private let state: Mutex<State>

    private struct State {
        var context: NIOSSLContext
        /// Digests of the files the context was made from.
        var loaded: FileDigests
        /// The last pair refused, and whether it was logged: once, however long it stays.
        var refused: Refusal?
        var reason = ""
        var warned = false
    }

    private struct FileDigests: Equatable {
        var certificate: SHA256Digest
        var key: SHA256Digest

        init(certificate: Data, key: Data) {
            self.certificate = SHA256.hash(data: certificate)
            self.key = SHA256.hash(data: key)
        }
    }

    private enum Refusal: Equatable {
        case unreadable(String)
        case unloadable(FileDigests)
    }

    /// Loads the pair; a pair that does not load stops the gateway from starting, as there is nothing to serve.
    init(certificatePath: String, keyPath: String, interval: Duration, logger: Logger) throws {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        self.interval = interval
        self.logger = logger
        let (certificate, key) = try Self.read(certificatePath, keyPath)
        let (context, _) = try Self.load(certificate: certificate, key: key)
        state = Mutex(State(context: context, loaded: FileDigests(certificate: certificate, key: key)))
    }

    /// The context a connection accepted now is served with.
    var context: NIOSSLContext { state.withLock { $0.context } }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: self.interval)
                guard !Task.isCancelled else { return }
                self.check()
            }
        }
    }

    /// Reads the files and takes the pair when it changed and loads.
    func check() {
        let certificate: Data
        let key: Data
        do {
            (certificate, key) = try Self.read(certificatePath, keyPath)
        } catch {
            return refuse(.unreadable(String(describing: error)), because: String(describing: error))
        }
        let digests = FileDigests(certificate: certificate, key: key)
        let (loaded, refusedBefore) = state.withLock { state -> (Bool, Bool) in
            if state.loaded == digests { state.refused = nil }
            return (state.loaded == digests, state.refused == .unloadable(digests))
        }
        if loaded { return }
        if refusedBefore { return refuse(.unloadable(digests), because: nil) }
        do {
            let (context, leaf) = try Self.load(certificate: certificate, key: key)
            state.withLock { $0 = State(context: context, loaded: digests) }
            let notAfter = Date(timeIntervalSince1970: TimeInterval(leaf.notValidAfter))
            logger.notice(
                "TLS certificate reloaded: new connections get it",
                metadata: ["certificate": .string(certificatePath), "not_after": .string(notAfter.formatted(.iso8601))])
        } catch {
            return refuse(.unloadable(digests), because: String(describing: error))
        }
    }

    /// `reason`: why it does not load, when it was tried (nil: the same files as refused at the last check).
    private func refuse(_ refusal: Refusal, because reason: String?) {
        let warning = state.withLock { state -> String? in
            guard state.refused == refusal else {
                state.refused = refusal
                state.reason = reason ?? ""
                state.warned = false
                return nil
            }
            defer { state.warned = true }
            return state.warned ? nil : state.reason
        }
        if let warning {
            logger.warning(
                "TLS certificate files changed but do not load: still serving the certificate loaded before",
                metadata: ["certificate": .string(certificatePath), "key": .string(keyPath), "error": .string(warning)])
        }
    }

    private static func read(_ certificatePath: String, _ keyPath: String) throws -> (Data, Data) {
        (try Data(contentsOf: URL(fileURLWithPath: certificatePath)), try Data(contentsOf: URL(fileURLWithPath: keyPath)))
    }

    /// A server context for the pair, and its leaf certificate. BoringSSL refuses a key that is not the leaf's.
    private static func load(certificate: Data, key: Data) throws -> (NIOSSLContext, NIOSSLCertificate) {
        let chain = try NIOSSLCertificate.fromPEMBytes(Array(certificate))
        guard let leaf = chain.first else { throw CertificateFileError(message: "no PEM certificate in the certificate file") }
        let privateKey = try NIOSSLPrivateKey(bytes: Array(key), format: .pem)
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
        return (try NIOSSLContext(configuration: configuration), leaf)
    }

    struct CertificateFileError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
