import Foundation

/// One GPS fix of a track, as the "Store Route" section lists it: `[latitude, longitude, altitude, accuracy,
/// fix_time]`. Degrees (WGS 84), metres, metres, and seconds since 1970 (UTC, fractions allowed).
/// `altitude` is null when the source had none (a GPX point without `<ele>`).
public struct Fix: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?
    public var accuracy: Double
    public var time: Double

    public init(latitude: Double, longitude: Double, altitude: Double?, accuracy: Double, time: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.accuracy = accuracy
        self.time = time
    }
}

/// A route: one or more tracks in chronological order, each a series of fixes between a start and a
/// pause or stop of the recording (docs/geotag.md, "Route format"). Its JSON is the plaintext of the encrypted route.
public struct Tracks: Sendable, Equatable {
    public var tracks: [[Fix]]

    public init(_ tracks: [[Fix]]) {
        self.tracks = tracks
    }

    public var fixCount: Int { tracks.reduce(0) { $0 + $1.count } }

    /// `[[[lat, lon, alt, accuracy, fix_time], …], …]`, compact.
    public func json() throws -> Data {
        let arrays: [[[Double?]]] = tracks.map { track in
            track.map { [$0.latitude, $0.longitude, $0.altitude, $0.accuracy, $0.time] }
        }
        return try JSONEncoder().encode(arrays)
    }

    public init(json: Data) throws {
        let arrays: [[[Double?]]]
        do {
            arrays = try JSONDecoder().decode([[[Double?]]].self, from: json)
        } catch {
            throw RouteFormatError.invalidTracks("expected [[[latitude, longitude, altitude, accuracy, fix_time], …], …]")
        }
        tracks = try arrays.enumerated().map { trackIndex, track in
            try track.enumerated().map { fixIndex, fix in
                guard fix.count == 5, let latitude = fix[0], let longitude = fix[1], let accuracy = fix[3], let time = fix[4] else {
                    throw RouteFormatError.invalidTracks(
                        "fix \(fixIndex) of track \(trackIndex) is not [latitude, longitude, altitude, accuracy, fix_time]")
                }
                return Fix(latitude: latitude, longitude: longitude, altitude: fix[2], accuracy: accuracy, time: time)
            }
        }
    }
}
