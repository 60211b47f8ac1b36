import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOSSL

/// Whose certificate a command trusts when it calls a running platform: the system's roots, and the certificate
/// `custodian up` made for its own gateway (`.custodian/tls/cert.pem` where the command runs, or `--ca-file`), so that
/// the commands work against a local platform without turning verification off.
struct TLSTrustOptions: ParsableArguments {
    static let defaultServer = "https://127.0.0.1:8443"
    static let upCertificate = ".custodian/tls/cert.pem"

    @Option(
        help:
            "A PEM certificate to trust besides the system's (default: \(TLSTrustOptions.upCertificate), the one `custodian up` made, when it exists)."
    )
    var caFile: String?
    @Flag(help: "Do not verify the server's certificate at all (a development server whose certificate you do not have).")
    var insecure = false

    func configuration() throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        if insecure {
            tls.certificateVerification = .none
            return tls
        }
        guard let path = caFile ?? (FileManager.default.fileExists(atPath: Self.upCertificate) ? Self.upCertificate : nil) else { return tls }
        do {
            tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(path))]
        } catch {
            throw CLIError("cannot read the certificate \(path) (--ca-file): \(error)")
        }
        return tls
    }

    /// A client that trusts what this says; the caller shuts it down.
    func httpClient() throws -> HTTPClient {
        // A server that refuses connections is retried until the connect timeout: keep the wait short.
        HTTPClient(
            eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: try configuration(), timeout: .init(connect: .seconds(5))))
    }

    /// What went wrong reaching `server`, with what to do when it was the certificate.
    func explain(_ error: any Error, server: String) -> CLIError {
        return explain(description: "\(error)", server: server)
    }

    func explain(description text: String, server: String) -> CLIError {
        guard text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("handshakeFailed") || text.contains("certificate") else {
            return CLIError("cannot reach \(server): \(text)")
        }
        return CLIError(
            """
            \(server) presented a certificate this command does not trust. For a `custodian up` platform, pass its \
            certificate with --ca-file (\(Self.upCertificate) in the directory it runs in, trusted by default from there); \
            --insecure skips the check (development only). (\(text))
            """)
    }
}
