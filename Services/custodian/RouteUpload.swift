import ArgumentParser
import AsyncHTTPClient
import CustodianGeotag
import GeotagClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// `custodian route …`: the geotag app's side of the API, for photographers who logged their route with
/// another GPS device (and for tests).
struct RouteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Stores routes in a Custodian geotag route store as the app does.",
        subcommands: [Upload.self])

    struct Upload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Encrypts the tracks of a GPX file with a passphrase and stores them (POST /route).",
            discussion: """
                Each <trkseg> becomes a track. Prints the route id and the QR text <unix time>-<nonce>: show that text \
                as a QR code and photograph it with the camera, so that the desktop tool can correct the camera's clock \
                and find the route. The nonce is needed, with the passphrase, to decrypt the route.
                """)

        @Option(help: "The GPX file with the track(s).") var gpx: String
        // Keys and secrets are URL-safe base64 and may start with "-", as may a passphrase: the next argument is
        // the value whatever it looks like.
        @Option(parsing: .unconditional, help: "The passphrase the route is encrypted with (default: CUSTODIAN_ROUTE_PASSPHRASE).")
        var passphrase: String?
        @Option(help: "The gateway's URL, e.g. https://127.0.0.1:8443.") var server: String
        @Option(parsing: .unconditional, help: "The API consumer key (default: CUSTODIAN_API_KEY).") var key: String?
        @Option(parsing: .unconditional, help: "The API consumer secret (default: CUSTODIAN_API_SECRET).") var secret: String?
        @Option(help: "The accuracy in metres recorded for every fix (GPX has none).") var accuracy: Double = 10
        @Flag(help: "Do not verify the server's TLS certificate (a local self-signed one).") var insecure = false

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            guard let passphrase = passphrase ?? environment["CUSTODIAN_ROUTE_PASSPHRASE"],
                !RouteSealer.normalised(passphrase).isEmpty
            else { throw ValidationError("give a non-empty --passphrase (or CUSTODIAN_ROUTE_PASSPHRASE)") }
            guard let key = key ?? environment["CUSTODIAN_API_KEY"], let secret = secret ?? environment["CUSTODIAN_API_SECRET"] else {
                throw ValidationError("give the API consumer's --key and --secret (or CUSTODIAN_API_KEY and CUSTODIAN_API_SECRET)")
            }
            guard accuracy >= 0, accuracy.isFinite else { throw ValidationError("--accuracy is a number of metres") }
            guard let data = FileManager.default.contents(atPath: gpx) else { throw CLIError("cannot read \(gpx)") }
            let read: GPXReader.Result
            do {
                read = try GPXReader.read(data, accuracy: accuracy)
            } catch {
                throw CLIError("\(gpx): \(error)")
            }

            let nonce = RouteNonce.random()
            let qr = RouteQRText(time: Int64(Date().timeIntervalSince1970), nonce: nonce)
            let body = Data(try RouteSealer.seal(tracks: read.tracks, passphrase: passphrase, nonce: nonce).base64EncodedString().utf8)
            let stored = try await GeotagClient(server: server, key: key, secret: secret, insecure: insecure)
                .post(path: "/route?lookup_id=\(nonce.lookupID)", body: body)

            print("route_id       \(stored.route_id)")
            print("qr_text        \(qr.text)")
            print("lookup_id      \(nonce.lookupID)")
            print("creation_time  \(stored.creation_time)")
            let skipped = switch read.skippedPoints {
            case 0: ""
            case 1: " (1 point without a time left out)"
            case let count: " (\(count) points without a time left out)"
            }
            print("tracks         \(read.tracks.tracks.count), \(read.tracks.fixCount) fixes\(skipped)")
        }
    }
}

/// Signed requests to a geotag route store.
struct GeotagClient {
    let server: String
    let key: String
    let secret: String
    let insecure: Bool

    struct StoredRoute: Decodable {
        var route_id: String
        var creation_time: Int64
    }

    func post(path: String, body: Data) async throws -> StoredRoute {
        guard let base = URL(string: server), ["http", "https"].contains(base.scheme ?? ""), base.host != nil, base.query == nil else {
            throw ValidationError("--server must be an http(s) URL, e.g. https://127.0.0.1:8443")
        }
        // The signature covers the path the gateway sees, so a server URL with a path keeps it in front.
        let root = server.hasSuffix("/") ? String(server.dropLast()) : server
        let target = (base.path.hasSuffix("/") ? String(base.path.dropLast()) : base.path) + path
        var request = HTTPClientRequest(url: root + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "text/plain")
        for (name, value) in RequestSignature.headers(key: key, secret: secret, method: "POST", pathWithQuery: target, body: body) {
            request.headers.add(name: name, value: value)
        }
        request.body = .bytes(ByteBuffer(bytes: body))

        var tls = TLSConfiguration.makeClientConfiguration()
        if insecure { tls.certificateVerification = .none }
        // A server that refuses connections is retried until the connect timeout: keep the wait short.
        let client = HTTPClient(eventLoopGroupProvider: .singleton,
                                configuration: .init(tlsConfiguration: tls, timeout: .init(connect: .seconds(5))))
        let exchange: Result<(HTTPResponseStatus, ByteBuffer), any Error>
        do {
            let response = try await client.execute(request, timeout: .seconds(60))
            exchange = .success((response.status, try await response.body.collect(upTo: 1024 * 1024)))
        } catch {
            exchange = .failure(error)
        }
        try? await client.shutdown()
        let (status, answer) = try exchange.mapError { CLIError("cannot reach \(server): \($0)") }.get()
        let text = String(buffer: answer)
        guard (200..<300).contains(status.code) else { throw CLIError("the server refused the route: \(status.code) \(text)") }
        guard let stored = try? JSONDecoder().decode(StoredRoute.self, from: Data(text.utf8)) else {
            throw CLIError("the server's answer is not a stored route: \(text)")
        }
        return stored
    }
}
