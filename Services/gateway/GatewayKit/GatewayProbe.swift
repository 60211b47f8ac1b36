import CustodianProcess
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// `gateway --probe live|ready`: asks the gateway this environment describes for `GET /healthz` (live) or
/// `GET /readyz` (ready: every service answers and reaches its database) on this host, for a compose healthcheck
/// or an exec probe where an HTTP probe cannot be used, and exits 0 on a 200, otherwise 1 with the reason.
public enum GatewayProbe {
    public static func run(_ kind: ProbeKind, configuration: Configuration) async -> Int32 {
        let path = kind == .live ? "/healthz" : "/readyz"
        do {
            let settings = try GatewayConfiguration(configuration)
            // A gateway listening on every address is asked on this host's own.
            let host = ["0.0.0.0", "::", ""].contains(settings.host) ? "127.0.0.1" : settings.host
            let status = try await get(path, host: host, port: settings.port, tls: settings.tlsCertificatePath != nil)
            guard status == 200 else {
                FileHandle.standardError.write(Data("gateway: \(kind.rawValue) probe failed: GET \(path) answered \(status)\n".utf8))
                return 1
            }
            print("gateway: \(kind.rawValue)")
            return 0
        } catch {
            FileHandle.standardError.write(Data("gateway: \(kind.rawValue) probe failed: \(error)\n".utf8))
            return 1
        }
    }

    /// The status of one GET, within 5 s. The certificate is not verified: the probe asks its own host's gateway
    /// whether it answers, and a self-signed certificate is the usual one there.
    static func get(_ path: String, host: String, port: Int, tls: Bool) async throws -> Int {
        let sslContext =
            try tls
            ? NIOSSLContext(
                configuration: {
                    var configuration = TLSConfiguration.makeClientConfiguration()
                    configuration.certificateVerification = .none
                    return configuration
                }()) : nil
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: nil))
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                try await channel.executeThenClose { inbound, outbound in
                    var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
                    head.headers.add(name: "Host", value: host)
                    head.headers.add(name: "Connection", value: "close")
                    try await outbound.write(.head(head))
                    try await outbound.write(.end(nil))
                    for try await part in inbound {
                        if case .head(let response) = part { return Int(response.status.code) }
                    }
                    throw ProbeFailure(message: "the gateway closed the connection without answering")
                }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(5))
                throw ProbeFailure(message: "no answer to GET \(path) within 5 s")
            }
            defer { group.cancelAll() }
            return try await group.next() ?? 0
        }
    }

    struct ProbeFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
