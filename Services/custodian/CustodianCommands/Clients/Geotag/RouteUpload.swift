import ArgumentParser
import CustodianGeotag
import CustodianQR
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
                Each <trkseg> becomes a track. Prints the route id and the QR text <unix time>-<nonce>, and draws that \
                text as a QR code: photograph it with the camera at once, so that the desktop tool can correct the \
                camera's clock and find the route (every second between the time in the code and the shutter is a \
                second of clock error). The nonce is needed, with the passphrase, to decrypt the route.
                """)

        @Option(help: "The GPX file with the track(s).") var gpx: String
        @OptionGroup var passphraseOptions: PassphraseOptions
        @OptionGroup var store: RouteStoreOptions
        @Option(help: "The accuracy in metres recorded for every fix (GPX has none).") var accuracy: Double = 10
        @Option(help: "Also write the QR code as a PNG image to this file.") var qrPng: String?

        /// Error correction Q (25 %) leaves room for the glare and moiré of a photographed screen; the text is short
        /// enough that the symbol stays small (version 4).
        static let errorCorrection = QRCode.ErrorCorrection.Q
        /// Pixels per module in the PNG: a 410-pixel square that a phone shows sharp.
        static let pngModuleSize = 10

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
            let blob = try RouteSealer.seal(tracks: read.tracks, passphrase: passphrase, nonce: nonce)
            let stored: RouteStoreClient.StoredRoute
            do {
                stored = try await client.store(blob, lookupID: nonce.lookupID)
            } catch .unreachable(_, let detail) {
                throw store.trust.explain(description: detail, server: store.server)
            } catch {
                throw CLIError(error.description)
            }

            // The time in the code is what the camera's clock is corrected against, so it is read when the code is
            // shown, after sealing (Argon2id) and the upload, as the app redraws its code with the current time.
            let qr = RouteQRText(time: Int64(Date().timeIntervalSince1970), nonce: nonce)
            let code: QRCode
            do throws(QRCodeError) {
                code = try QRCode(encoding: qr.text, errorCorrection: Self.errorCorrection)
            } catch {
                throw CLIError("cannot draw the QR code of \(qr.text): \(error)")
            }
            print("route_id       \(stored.routeID)")
            print("qr_text        \(qr.text)")
            print("lookup_id      \(nonce.lookupID)")
            print("creation_time  \(stored.creationTime)")
            let skipped =
                switch read.skippedPoints {
                case 0: ""
                case 1: " (1 point without a time left out)"
                case let count: " (\(count) points without a time left out)"
                }
            print("tracks         \(read.tracks.tracks.count), \(read.tracks.fixCount) fixes\(skipped)")
            // The route is stored whatever happens to the PNG: the code is still drawn below, and the error comes last.
            var pngProblem: CLIError?
            if let qrPng {
                do {
                    let png = try PNGEncoder.encode(QRLayout(code: code, moduleSize: Self.pngModuleSize, margin: 4))
                    try Files.create(Array(png), at: qrPng, mode: 0o644, exclusive: false)
                    print("qr_png         \(qrPng)")
                } catch {
                    pngProblem = CLIError("cannot write the QR code to \(qrPng): \(error); the route is stored (route_id above)")
                }
            }
            print("")
            let colours: TerminalQR.Colours = isatty(STDOUT_FILENO) == 1 ? .blackOnWhite : .plain
            for line in TerminalQR.lines(code, colours: colours) { print(line) }
            print("")
            print("Photograph this QR code with the camera now: it holds the time \(qr.time), and every second between that")
            print("time and the shutter is a second of error in the camera clock's correction.")
            if let pngProblem { throw pngProblem }
        }
    }
}
