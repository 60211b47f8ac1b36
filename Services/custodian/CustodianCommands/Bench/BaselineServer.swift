import ArgumentParser
import CustodianJSON
import CustodianRPC
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle

/// The monolith side of `custodian bench split-tax`: what a monolith would do for `POST /upload {}` — read the body with
/// the same JSON reader, find no `device_id`, answer the thesis' 400 — in a bare Hummingbird app.
///
/// It runs as a process of its own, started by the bench from its own executable, as the gateway and `devices` are:
/// inside the load generator's process, client and server shared event loops, so that a request and its answer could
/// pass between them within one turn of a loop, without the wake-ups any server that is not its own client pays.
enum BaselineServer {
    /// The app, listening on a free port of 127.0.0.1; `onListening` gets its URL.
    static func application(
        certificate: String?, key: String?, logger: Logger,
        onListening: @escaping @Sendable (String) -> Void
    ) throws -> some ApplicationProtocol {
        let router = Router()
        router.post("/upload") { request, _ -> Response in
            let bytes = try await request.body.collect(upTo: 1024 * 1024)
            let fields = try? JSONValue.parse(bytes.readableBytesView, maximumDepth: 32)
            if case .object(let object)? = fields, case .string(let id)? = object["device_id"], !id.isEmpty {
                return Response(
                    status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"status":"ok"}"#)))
            }
            let answer = JSONValue.object(["error": "Missing device_id parameter"]).jsonBytes
            return Response(status: .badRequest, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: answer)))
        }
        let server: HTTPServerBuilder
        if let certificate, let key {
            let chain = try NIOSSLCertificate.fromPEMFile(certificate).map { NIOSSLCertificateSource.certificate($0) }
            server = try .tls(
                .http1(),
                tlsConfiguration: .makeServerConfiguration(
                    certificateChain: chain, privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))))
        } else {
            server = .http1()
        }
        let scheme = certificate == nil ? "http" : "https"
        return Application(
            router: router, server: server, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in onListening("\(scheme)://127.0.0.1:\(channel.localAddress?.port ?? 0)") },
            logger: logger)
    }

    /// Runs `body` with the URL of a baseline server in a child process, which is stopped afterwards.
    static func withProcess<Result: Sendable>(certificate: String?, key: String?, _ body: (String) async throws -> Result) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        process.arguments = ["bench-baseline"] + (certificate.map { ["--certificate", $0] } ?? []) + (key.map { ["--key", $0] } ?? [])
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let result: Swift.Result<Result, any Error>
        do {
            result = .success(try await body(try readURL(from: output.fileHandleForReading)))
        } catch {
            result = .failure(error)
        }
        // Stopped (and waited for) whether or not it started serving.
        process.terminate()
        process.waitUntilExit()
        return try result.get()
    }

    /// The first line the child prints: its URL (it prints it within moments of starting, or exits).
    private static func readURL(from handle: FileHandle) throws -> String {
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let url = String(decoding: line.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        guard url.hasPrefix("http") else { throw CLIError("the bench's baseline server did not start") }
        return url
    }
}

/// `custodian bench-baseline`: the split-tax baseline as its own process (started by `custodian bench`); prints its URL
/// and serves until SIGTERM or SIGINT.
struct BenchBaseline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-baseline", abstract: "Serves the split-tax baseline (for custodian bench).",
        shouldDisplay: false)

    @Option(help: "A PEM certificate, for HTTPS.") var certificate: String?
    @Option(help: "Its PEM private key.") var key: String?

    func run() async throws {
        var logger = Logger(label: "bench-baseline")
        logger.logLevel = .warning
        let app = try BaselineServer.application(certificate: certificate, key: key, logger: logger) { url in
            FileHandle.standardOutput.write(Data((url + "\n").utf8))
        }
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
