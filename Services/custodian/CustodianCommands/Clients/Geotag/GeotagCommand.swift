import ArgumentParser
import CustodianGeotag
import Foundation
import GeotagClient
import GeotagTool

/// `custodian geotag DIR`: the photographer's desktop tool (docs/geotag.md, "`custodian geotag`"). The work is done in GeotagTool; this
/// reads the options, puts the steps in order and turns failures into one-line messages.
struct GeotagCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geotag",
        abstract: "Writes GPS tags into the JPEG photos of a folder from the route the phone recorded.",
        discussion: """
            Finds the photo of the QR code the app showed (<unix time>-<nonce>), corrects every photo's capture time by \
            the camera clock's offset that photo measures, fetches the route (by --route-id, or by the lookup id derived \
            from the QR code), decrypts it with the passphrase, and writes each photo's interpolated position into its \
            Exif GPS tags. Photos outside the route (by more than --extrapolate seconds), or in a gap longer than \
            --max-gap, are left as they are. Warns on stderr when the photos come from several cameras, whose clocks \
            differ. See docs/geotag.md.
            """)

    @Argument(help: "The folder with the photos (*.jpg, *.jpeg), the QR code's photo among them.") var folder: String
    // Route ids are URL-safe base64 and may start with "-": the next argument is the value whatever it looks like.
    @Option(parsing: .unconditional, help: "The route's id, as the app shows it (default: found by the QR code's lookup id).")
    var routeID: String?
    @OptionGroup var passphraseOptions: PassphraseOptions
    @OptionGroup var store: RouteStoreOptions
    @Option(help: "The longest gap, in seconds, between two fixes that a photo's position is interpolated across.")
    var maxGap: Double = 300
    @Option(help: "Photos up to this many seconds before the route's first fix or after its last get that fix's position.")
    var extrapolate: Double = 0
    @Flag(help: "Take the photos of the folder's subfolders too (a memory card's DCIM/100CANON, 101CANON …).") var recursive = false
    @Option(help: "Write the geotagged photos into this folder instead of changing them in place.") var output: String?
    @Flag(help: "Print what would be written, and write nothing.") var dryRun = false

    func run() async throws {
        // The bound keeps the seconds printable as whole numbers; no route spans 30 years.
        guard maxGap >= 0, maxGap <= 1e9 else { throw ValidationError("--max-gap is a number of seconds") }
        guard extrapolate >= 0, extrapolate <= 1e9 else { throw ValidationError("--extrapolate is a number of seconds, 0 or more") }
        let passphrase = try passphraseOptions.resolve()
        let client = try store.client()

        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw CLIError("\(folder) is not a folder")
        }
        let names: [String]
        do {
            // Copies written into an output folder inside the one searched are not photos to tag again.
            let skipping = recursive ? output.flatMap { PhotoFolder.relativePath(of: $0, inside: folder) } : nil
            names = try PhotoFolder.photos(in: folder, recursive: recursive, skipping: skipping)
        } catch {
            throw CLIError("cannot list \(folder): \(error.localizedDescription)")
        }
        guard !names.isEmpty else { throw CLIError(GeotagError.noPhotos(folder: folder, recursive: recursive).description) }
        let root = folder
        let progress = Self.progressLine()
        let scans = await PhotoScanner.scan(names, read: { try PhotoFolder.read(root + "/" + $0) }, progress: { progress.show($0.text) })
        progress.finish()
        let reference: QRReference
        do {
            reference = try QRReference.find(in: scans)
        } catch {
            throw CLIError(error.description)
        }
        let offset = Int(reference.correction.offset.rounded())
        print("QR code        \(reference.qr.text) in \(reference.photo)")
        print("camera clock   \(offset == 0 ? "right" : "\(abs(offset)) s \(offset > 0 ? "behind" : "ahead")")")
        if let warning = CameraBodies.warning(scans, qrPhoto: reference.photo) {
            // After the lines above even when both streams go to one file.
            fflush(nil)
            TerminalOutput.warn(warning)
        }

        let route = try await fetchRoute(client, reference: reference)
        let tracks: Tracks
        do {
            tracks = try RouteSealer.open(route.blob, passphrase: passphrase, nonce: reference.qr.nonce)
        } catch RouteFormatError.cannotOpen {
            throw CLIError("wrong passphrase: route \(route.routeID) does not open with it and the nonce of \(reference.photo)")
        }
        let interpolator = RouteInterpolator(tracks: tracks, maxGap: maxGap, maxExtrapolation: extrapolate)
        if let start = interpolator.start, let end = interpolator.end {
            print(
                "route          \(route.routeID): \(tracks.tracks.count) tracks, \(tracks.fixCount) fixes, "
                    + "\(GeotagPlan.time(start)) to \(GeotagPlan.time(end))")
        }

        var plan = GeotagPlan.plan(scans, correction: reference.correction, route: interpolator)
        if dryRun {
            print("")
            print(SummaryTable(plan).text)
            print("dry run: \(Self.photos(plan.count { $0.isTagged })) would be geotagged, \(plan.count { !$0.isTagged }) skipped; nothing written")
            return
        }
        if let output {
            do {
                try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            } catch {
                throw CLIError("cannot create \(output): \(error.localizedDescription)")
            }
        }
        plan = PhotoFolder.apply(plan, folder: folder, output: output)
        print("")
        print(SummaryTable(plan).text)
        print("\(Self.photos(plan.count { $0.isTagged })) geotagged\(output.map { " into \($0)" } ?? ""), \(plan.count { !$0.isTagged }) skipped")
    }

    /// Scanning a card's worth of large photos takes a while: a line on stderr says how far it got.
    static func progressLine() -> ProgressLine {
        let write: @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
        guard isatty(STDERR_FILENO) == 1 else { return ProgressLine(mode: .log(interval: .seconds(10)), write: write) }
        var size = winsize()
        let columns = ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
        return ProgressLine(mode: .terminal(columns: columns), write: write)
    }

    static func photos(_ count: Int) -> String {
        count == 1 ? "1 photo" : "\(count) photos"
    }

    private func fetchRoute(_ client: RouteStoreClient, reference: QRReference) async throws -> RouteStoreClient.FetchedRoute {
        do {
            if let routeID {
                return try await client.fetch(routeID: routeID)
            }
            return try await client.fetch(lookupID: reference.qr.nonce.lookupID)
        } catch .refused(404, _) {
            throw CLIError(
                routeID.map { "the server has no route \($0)" }
                    ?? "the server has no route for the QR code in \(reference.photo) (lookup id \(reference.qr.nonce.lookupID)); give its --route-id"
            )
        } catch .unreachable(_, let detail) {
            throw store.trust.explain(description: detail, server: store.server)
        } catch {
            throw CLIError(error.description)
        }
    }
}

extension PlannedPhoto {
    var isTagged: Bool {
        if case .tag = action { true } else { false }
    }
}
