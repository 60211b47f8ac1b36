import Foundation

/// The first pass over a folder: every photo's Exif data, and the search for the QR photo, several photos at a time.
///
/// Where the QR photo can be. Only a photo with a capture time can give the clock correction, so only those are
/// decoded; photos without one are decoded only when none of the others shows the code, so that such a QR photo
/// still gets its own error message rather than "no photo shows the code". Capture times cannot narrow the search
/// further, sound as that would seem: the QR code's time is on the phone's clock and capture times are on the
/// camera's, and how far apart those two clocks are is exactly what the QR photo is there to measure. Before it is
/// read the camera may be hours off (another time zone) or years (a clock that was never set), so no window of
/// capture times is sure to hold it. Nor does `--route-id` help: the route's fixes, and so its time span, are
/// sealed with the QR code's nonce, and the server's creation time is on yet another clock. Stopping at the first
/// photo that shows the code would change what the tool finds, too: a second photo of the same code can tighten
/// the correction, and a code of another route or a second camera's photo of it must still be reported.
///
/// How it reads them. Every search pass decodes each candidate with libjpeg-turbo's DCT scaling and hands the grey
/// pixels to zbar. Decoding costs nearly the same at every scale, since the entropy decoding dominates (about 90 ms
/// for a 24 MP photo where this was measured), but zbar's cost grows with the pixels (about 15 ms at 1/8, 60 ms at
/// 1/4, 150 ms at 1/2, 750 ms at full size). So the first pass reads every candidate at the smallest scale that
/// keeps the longer side at least 1000 pixels, where a code a tenth of the frame's height across (a phone's screen
/// photographed from arm's length with a wide lens) still has over two pixels a module. 720 pixels would save a
/// third of the first pass but miss such codes, and the passes after it cost far more. Only when no candidate shows
/// a route code does a pass at a larger scale follow: at least 2048 pixels, then full size (each skipped for a
/// photo already read at that scale). Looking larger at each photo in turn instead would make every photo that
/// shows no code pay for every pass.
public enum PhotoScanner {
    /// The shortest longer side, in pixels, of each pass's scale; `Int.max` is full size.
    static let passes = [1000, 2048, Int.max]

    public struct Progress: Sendable, Equatable {
        public enum Phase: Sendable, Equatable {
            /// The first pass: Exif data, and the smallest scale.
            case photos
            /// No code yet: the photos with a capture time again, at a larger scale.
            case larger
            /// No code in those: the photos without a capture time.
            case undated
        }

        public var phase: Phase
        public var done: Int
        public var total: Int
        /// The photo just finished.
        public var photo: String

        public init(phase: Phase, done: Int, total: Int, photo: String) {
            (self.phase, self.done, self.total, self.photo) = (phase, done, total, photo)
        }

        /// `scanning 12/21 photos (DSC0012.JPG)`.
        public var text: String {
            let what =
                switch phase {
                case .photos: "photos"
                case .larger: "photos at a larger scale"
                case .undated: "photos without a capture time"
                }
            return "scanning \(done)/\(total) \(what) (\(photo))"
        }
    }

    /// The scans of `names`, in their order. `read` gives a photo's bytes by its name; it is called from several
    /// tasks at once, at most `parallelism` at a time (decoding and zbar are CPU-bound C code: one photo per core
    /// keeps every core busy, and more would only hold more photos in memory), and more than once for a photo that
    /// a larger pass decodes again (keeping every photo's bytes would take gigabytes). `progress` is called in this
    /// task as each photo is done.
    public static func scan(
        _ names: [String], parallelism: Int = ProcessInfo.processInfo.activeProcessorCount,
        read: @escaping @Sendable (String) throws -> [UInt8],
        progress: (Progress) -> Void = { _ in }
    ) async -> [PhotoScan] {
        var scans = names.map { PhotoScan(name: $0, captureTime: nil) }
        await concurrently(Array(names.indices), limit: parallelism) { index in
            let name = names[index]
            guard let jpeg = try? read(name) else { return PhotoScan(name: name, captureTime: nil, problem: "cannot read it") }
            var scan = PhotoScan(name: name, exifOf: jpeg)
            if scan.captureTime != nil { scan.searchQR(in: jpeg, longerSide: passes[0]) }
            return scan
        } each: { index, scan, done in
            scans[index] = scan
            progress(Progress(phase: .photos, done: done, total: names.count, photo: scan.name))
        }

        let dated = scans.indices.filter { scans[$0].problem == nil && scans[$0].captureTime != nil }
        let undated = scans.indices.filter { scans[$0].problem == nil && scans[$0].captureTime == nil }
        for (phase, candidates, ladder) in [(Progress.Phase.larger, dated, passes.dropFirst()), (.undated, undated, passes[...])] {
            for longerSide in ladder {
                guard !scans.contains(where: { !$0.routeQRCodes.isEmpty }) else { return scans }
                let todo = candidates.filter { scans[$0].wouldSearch(longerSide: longerSide) }
                let before = scans
                await concurrently(todo, limit: parallelism) { index in
                    var scan = before[index]
                    guard let jpeg = try? read(scan.name) else { return scan }
                    scan.searchQR(in: jpeg, longerSide: longerSide)
                    return scan
                } each: { index, scan, done in
                    scans[index] = scan
                    progress(Progress(phase: phase, done: done, total: todo.count, photo: scan.name))
                }
            }
        }
        return scans
    }

    /// `work` for each of `indices`, at most `limit` at a time in child tasks; `each` gets the results in the
    /// order they finish, with how many are done, in this task.
    static func concurrently<Result: Sendable>(
        _ indices: [Int], limit: Int, _ work: @escaping @Sendable (Int) -> Result,
        each: (Int, Result, Int) -> Void
    ) async {
        await withTaskGroup(of: (Int, Result).self) { group in
            var next = 0, done = 0
            while next < min(max(1, limit), indices.count) {
                let index = indices[next]
                next += 1
                group.addTask { (index, work(index)) }
            }
            while let (index, result) = await group.next() {
                done += 1
                each(index, result, done)
                if next < indices.count {
                    let index = indices[next]
                    next += 1
                    group.addTask { (index, work(index)) }
                }
            }
        }
    }
}
