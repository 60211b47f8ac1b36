import CustodianGeotag

/// Where the route says the photographer was at a given time: linear in time between the two fixes around
/// it. The fixes of all tracks are taken together in time order, so a photo in a pause between two tracks is
/// placed like one between two fixes of a track: when the two fixes around it are at most `maxGap` seconds
/// apart. A longer gap (the GPS lost its fix, or the recording was paused while the photographer moved on)
/// leaves the position unknown rather than guessed.
///
/// Before the first fix and after the last there is nothing to interpolate between. A photo up to
/// `maxExtrapolation` seconds outside them gets the first or last fix's position (exiftool's geotagging does the
/// same, up to its GeoMaxExtSecs): the phone takes a while to find its first fix, and the last photo may be taken
/// after the recording was stopped, both a few steps from where the route ends.
public struct RouteInterpolator: Sendable {
    public enum Outcome: Sendable, Equatable {
        case position(GeoPosition)
        /// Before the first fix, which was at `start`, by more than `maxExtrapolation`.
        case beforeRoute(start: Double)
        /// After the last fix, which was at `end`, by more than `maxExtrapolation`.
        case afterRoute(end: Double)
        /// Between fixes further apart than the limit.
        case gap(from: Double, to: Double, betweenTracks: Bool)
    }

    struct Point {
        var fix: Fix
        var track: Int
    }

    let points: [Point]
    public let maxGap: Double
    public let maxExtrapolation: Double

    public init(tracks: Tracks, maxGap: Double, maxExtrapolation: Double = 0) {
        // A stable sort: fixes at the same instant keep the route's order.
        points = tracks.tracks.enumerated()
            .flatMap { track, fixes in fixes.map { Point(fix: $0, track: track) } }
            .enumerated().sorted { ($0.element.fix.time, $0.offset) < ($1.element.fix.time, $1.offset) }.map(\.element)
        self.maxGap = maxGap
        self.maxExtrapolation = maxExtrapolation
    }

    public var start: Double? { points.first?.fix.time }
    public var end: Double? { points.last?.fix.time }

    public func position(at time: Double) -> Outcome {
        guard let first = points.first, let last = points.last else { return .beforeRoute(start: .nan) }
        if time < first.fix.time {
            return first.fix.time - time <= maxExtrapolation ? .position(Self.position(of: first.fix)) : .beforeRoute(start: first.fix.time)
        }
        if time > last.fix.time {
            return time - last.fix.time <= maxExtrapolation ? .position(Self.position(of: last.fix)) : .afterRoute(end: last.fix.time)
        }
        // The first point later than `time`; the one before it is at or before `time`.
        var low = 0, high = points.count
        while low < high {
            let middle = (low + high) / 2
            if points[middle].fix.time <= time { low = middle + 1 } else { high = middle }
        }
        let before = points[low - 1]
        if before.fix.time == time || low == points.count { return .position(Self.position(of: before.fix)) }
        let after = points[low]
        guard after.fix.time - before.fix.time <= maxGap else {
            return .gap(from: before.fix.time, to: after.fix.time, betweenTracks: before.track != after.track)
        }
        let fraction = (time - before.fix.time) / (after.fix.time - before.fix.time)
        return .position(Self.interpolate(before.fix, after.fix, fraction))
    }

    static func position(of fix: Fix) -> GeoPosition {
        GeoPosition(latitude: fix.latitude, longitude: fix.longitude, altitude: fix.altitude)
    }

    /// Straight lines in degrees, which over the few metres between fixes is the straight line on the ground;
    /// the longitude takes the short way across the antimeridian. Without an altitude at both ends there is none.
    static func interpolate(_ a: Fix, _ b: Fix, _ fraction: Double) -> GeoPosition {
        var deltaLongitude = b.longitude - a.longitude
        if deltaLongitude > 180 { deltaLongitude -= 360 } else if deltaLongitude < -180 { deltaLongitude += 360 }
        var longitude = a.longitude + deltaLongitude * fraction
        if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
        let altitude = a.altitude.flatMap { from in b.altitude.map { from + ($0 - from) * fraction } }
        return GeoPosition(latitude: a.latitude + (b.latitude - a.latitude) * fraction, longitude: longitude, altitude: altitude)
    }
}
