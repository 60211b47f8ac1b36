import CustodianProcess
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization
import Testing

extension OneAtATime {
    /// Issue 27: the gateway's certificate renewed as cert-manager or certbot renews it, by replacing the files, on a
    /// running platform under load (docs/operations.md, "Renewing the TLS certificate"). The files are checked every
    /// second here instead of every 5 s.
    @Suite(
        "Renewing the gateway's TLS certificate", .serialized,
        .runningPlatform(settings: ["CUSTODIAN_RATE_LIMITS": "off", "CUSTODIAN_TLS_RELOAD_INTERVAL": "1s"]))
    struct TLSCertificateRenewalTests {
        static let interval: Duration = .seconds(1)

        struct Pair {
            var certificate: String
            var key: String
        }

        /// A new certificate for 127.0.0.1 and its key, as an operator makes one with openssl.
        static func makePair(_ name: String, in directory: String) throws -> Pair {
            let key = "\(directory)/\(name).key", certificate = "\(directory)/\(name).crt"
            try Shell.run([
                "/usr/bin/env", "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=\(name)", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            ])
            return Pair(
                certificate: try String(contentsOfFile: certificate, encoding: .utf8), key: try String(contentsOfFile: key, encoding: .utf8))
        }

        /// Writes the gateway's files as a renewal does: each written whole beside it, then renamed into place.
        static func install(certificate: String, key: String) throws {
            let directory = try platform.dataDirectory + "/tls"
            for (text, name) in [(key, "key.pem"), (certificate, "cert.pem")] {
                let temporary = "\(directory)/.\(name).new"
                try text.write(toFile: temporary, atomically: false, encoding: .utf8)
                guard rename(temporary, "\(directory)/\(name)") == 0 else { throw PlatformError("rename \(name): errno \(errno)") }
            }
        }

        /// The certificate a new TLS connection to the gateway is shown (whatever it is: the callback replaces the check).
        static func presented() async throws -> NIOSSLCertificate {
            guard let port = URLComponents(string: try platform.baseURL)?.port else { throw PlatformError("no port") }
            let context = try NIOSSLContext(configuration: .makeClientConfiguration())
            let group = MultiThreadedEventLoopGroup.singleton
            let shown = Shown(group.next().makePromise(of: NIOSSLCertificate.self))
            let channel = try await ClientBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let handler = try NIOSSLClientHandler(context: context, serverHostname: nil) { chain, verdict in
                            shown.complete(chain.first.map { .success($0) } ?? .failure(PlatformError("no certificate")))
                            verdict.succeed(.certificateVerified)
                        }
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                }
                .connect(host: "127.0.0.1", port: port).get()
            defer { channel.close(promise: nil) }
            channel.closeFuture.whenComplete { _ in shown.complete(.failure(PlatformError("closed before a certificate was shown"))) }
            return try await shown.promise.futureResult.get()
        }

        /// A promise completed by whichever comes first: the certificate, or the connection's end.
        final class Shown: Sendable {
            let promise: EventLoopPromise<NIOSSLCertificate>
            private let completed = Atomic(false)
            init(_ promise: EventLoopPromise<NIOSSLCertificate>) { self.promise = promise }
            func complete(_ result: Result<NIOSSLCertificate, any Error>) {
                if !completed.exchange(true, ordering: .relaxed) { promise.completeWith(result) }
            }
        }

        /// Waits until new connections are shown `certificate`; how long that took from `since`.
        static func untilPresented(_ certificate: String, since: ContinuousClock.Instant) async throws -> Duration? {
            let expected = try NIOSSLCertificate.fromPEMBytes(Array(certificate.utf8)).first
            while ContinuousClock.now - since < .seconds(30) {
                if try await presented() == expected { return ContinuousClock.now - since }
                try await Task.sleep(for: .milliseconds(100))
            }
            return nil
        }

        static func warnings() throws -> Int {
            let log = (try? String(contentsOfFile: try platform.dataDirectory + "/logs/gateway.log", encoding: .utf8)) ?? ""
            return log.components(separatedBy: "TLS certificate files changed but do not load").count - 1
        }

        @Test func aRenewedCertificateIsServedToNewConnectionsWhileOpenOnesKeepWorking() async throws {
            let platform = try platform
            let scratch = NSTemporaryDirectory() + "tls-renewal-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            let original = try String(contentsOfFile: platform.dataDirectory + "/tls/cert.pem", encoding: .utf8)
            let first = try Self.makePair("renewed-1", in: scratch)
            let second = try Self.makePair("renewed-2", in: scratch)
            #expect(try await Self.presented() == NIOSSLCertificate.fromPEMBytes(Array(original.utf8)).first)

            // A connection opened before any renewal, which has answered once already.
            let open = try await RawConnection.open(to: platform)
            defer { open.close() }
            try await open.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(try await open.wait(upTo: .seconds(10)) { $0.text.contains("HTTP/1.1 200") }, "\(open.text)")

            // Load through both renewals, from clients that trust all three certificates (as clients trust the CA that
            // issues them), so that a connection they open at any moment finds a certificate it accepts.
            let trusted = scratch + "/trusted.pem"
            try [original, first.certificate, second.certificate].joined(separator: "\n").write(toFile: trusted, atomically: true, encoding: .utf8)
            async let load = platform.loadgen(RunningPlatform.gentleLoad(for: "14s") + ["--ca-file", trusted])
            try await Task.sleep(for: .seconds(3))

            try Self.install(certificate: first.certificate, key: first.key)
            let firstShown = try await Self.untilPresented(first.certificate, since: .now)
            #expect(firstShown.map { $0 <= Self.interval * 5 } == true, "the renewed certificate was shown after \(String(describing: firstShown))")
            // The connection opened before still answers, and the old certificate's handshake was its own.
            try await open.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(
                try await open.wait(upTo: .seconds(10)) { $0.text.components(separatedBy: "HTTP/1.1 200").count == 3 },
                "the connection opened before the renewal: \(open.text)")

            // A pair that does not load is ignored, with one warning each however long it stays: a key that is not the
            // certificate's, then a certificate cut short (a renewal caught half-written).
            let warningsBefore = try Self.warnings()
            try Self.install(certificate: second.certificate, key: first.key)
            try await Task.sleep(for: Self.interval * 4)
            #expect(try await Self.presented() == NIOSSLCertificate.fromPEMBytes(Array(first.certificate.utf8)).first)
            #expect(try Self.warnings() == warningsBefore + 1)
            try Self.install(certificate: String(second.certificate.prefix(second.certificate.count / 2)), key: second.key)
            try await Task.sleep(for: Self.interval * 4)
            #expect(try await Self.presented() == NIOSSLCertificate.fromPEMBytes(Array(first.certificate.utf8)).first)
            #expect(try Self.warnings() == warningsBefore + 2)

            // Written whole, the second pair is taken.
            try Self.install(certificate: second.certificate, key: second.key)
            let secondShown = try await Self.untilPresented(second.certificate, since: .now)
            #expect(secondShown.map { $0 <= Self.interval * 5 } == true, "the second certificate was shown after \(String(describing: secondShown))")

            let run = try await load
            #expect(run.status == 0, "\(run.output)")
            let report = try #require(run.report, "\(run.output)")
            #expect(report.total.errors == 0 && report.total.operations > 100, "\(report.total)")
            #expect(report.nothingLost, "\(report.verification)")
            print(
                "TLS renewal: new connections got the renewed certificate after \(String(describing: firstShown)) and "
                    + "\(String(describing: secondShown)) (checked every 1 s); loadgen: \(report.total.operations) requests, "
                    + "\(report.total.errors) errors, statuses \(report.total.statuses)")
        }
    }
}
