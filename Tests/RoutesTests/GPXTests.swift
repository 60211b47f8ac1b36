import CustodianGeotag
import GeotagClient
import Foundation
import Testing

@Suite("GPX tracks")
struct GPXTests {
    static let twoSegments = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
          <wpt lat="1" lon="1"><time>2025-11-24T16:00:00Z</time></wpt>
          <trk><name>Walk</name>
            <trkseg>
              <trkpt lat="52.0907" lon="5.1214"><ele>4.5</ele><time>2025-11-24T16:00:00Z</time></trkpt>
              <trkpt lat="52.0911" lon="5.1222"><ele>4.9</ele><time>2025-11-24T16:00:05.500Z</time></trkpt>
              <trkpt lat="52.0912" lon="5.1223"><ele>5.0</ele></trkpt>
            </trkseg>
            <trkseg>
              <trkpt lat="52.1" lon="5.2"><time>2025-11-24T18:00:00+02:00</time></trkpt>
            </trkseg>
          </trk>
        </gpx>
        """

    @Test func segmentsBecomeTracksAndPointsWithoutTimeAreSkipped() throws {
        let result = try GPXReader.read(Data(Self.twoSegments.utf8), accuracy: 10)
        #expect(result.skippedPoints == 1)
        #expect(
            result.tracks
                == Tracks([
                    [
                        Fix(latitude: 52.0907, longitude: 5.1214, altitude: 4.5, accuracy: 10, time: 1_764_000_000),
                        Fix(latitude: 52.0911, longitude: 5.1222, altitude: 4.9, accuracy: 10, time: 1_764_000_005.5),
                    ],
                    [Fix(latitude: 52.1, longitude: 5.2, altitude: nil, accuracy: 10, time: 1_764_000_000)],
                ]))
    }

    @Test func namespacePrefixesAreRead() throws {
        let gpx =
            #"<g:gpx xmlns:g="http://www.topografix.com/GPX/1/0"><g:trk><g:trkseg><g:trkpt lat="1.5" lon="-2.5"><g:time>2025-11-24T16:00:00Z</g:time></g:trkpt></g:trkseg></g:trk></g:gpx>"#
        let result = try GPXReader.read(Data(gpx.utf8), accuracy: 3)
        #expect(result.tracks.tracks == [[Fix(latitude: 1.5, longitude: -2.5, altitude: nil, accuracy: 3, time: 1_764_000_000)]])
    }

    @Test func clearErrors() {
        func problem(_ text: String) -> String {
            do {
                _ = try GPXReader.read(Data(text.utf8), accuracy: 10)
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        #expect(problem("<gpx><trk><trkseg></trkseg></trk></gpx>") == "the file has no track points (<trk><trkseg><trkpt>)")
        #expect(problem(#"<gpx><trk><trkseg><trkpt lat="1" lon="2"/></trkseg></trk></gpx>"#) == "no track point has a time")
        #expect(problem(#"<gpx><trk><trkseg><trkpt lat="100" lon="2"/></trkseg></trk></gpx>"#).contains("lacks a valid lat and lon"))
        #expect(problem("not xml at all").hasPrefix("not a readable GPX file"))
    }
}
