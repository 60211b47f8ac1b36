import ArgumentParser
import CustodianGeotag
import GeotagClient
import Foundation

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
        @OptionGroup var passphraseOptions: PassphraseOptions
        @OptionGroup var store: RouteStoreOptions
        @Option(help: "The accuracy in metres recorded for every fix (GPX has none).") var accuracy: Double = 10

        func run() async throws {
            let passphrase = try passphraseOptions.resolve()
            let client = try store.client()
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
            let blob = try RouteSealer.seal(tracks: read.tracks, passphrase: passphrase, nonce: nonce)
            let stored: RouteStoreClient.StoredRoute
            do {
                stored = try await client.store(blob, lookupID: nonce.lookupID)
            } catch .unreachable(_, let detail) {
                throw store.trust.explain(description: detail, server: store.server)
            } catch {
                throw CLIError(error.description)
            }

            print("route_id       \(stored.routeID)")
            print("qr_text        \(qr.text)")
            print("lookup_id      \(nonce.lookupID)")
            print("creation_time  \(stored.creationTime)")
            let skipped = switch read.skippedPoints {
            case 0: ""
            case 1: " (1 point without a time left out)"
            case let count: " (\(count) points without a time left out)"
            }
            print("tracks         \(read.tracks.tracks.count), \(read.tracks.fixCount) fixes\(skipped)")
        }
    }
}
