import CustodianGeotag
import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads the tracks of a GPX file (GPX 1.0 or 1.1): each `<trkseg>` of each `<trk>` becomes one track, each
/// `<trkpt lat lon>` with its `<ele>` and `<time>` one fix. GPX records no accuracy, so every fix gets the
/// one the caller gives. Points without a time cannot be placed on the camera's clock and are skipped.
public struct GPXReader {
    public struct Result: Sendable, Equatable {
        public var tracks: Tracks
        /// Track points left out because they had no (readable) time.
        public var skippedPoints: Int
    }

    public static func read(_ data: Data, accuracy: Double) throws -> Result {
        let delegate = GPXParserDelegate(accuracy: accuracy)
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        guard parser.parse() else {
            if let problem = delegate.problem { throw GPXError(problem) }
            throw GPXError(
                "not a readable GPX file (\(parser.parserError.map { "\($0.localizedDescription)" } ?? "XML error") at line \(parser.lineNumber))")
        }
        if let problem = delegate.problem { throw GPXError(problem) }
        let tracks = delegate.tracks.filter { !$0.isEmpty }
        guard !tracks.isEmpty else {
            throw GPXError(delegate.skipped > 0 ? "no track point has a time" : "the file has no track points (<trk><trkseg><trkpt>)")
        }
        return Result(tracks: Tracks(tracks), skippedPoints: delegate.skipped)
    }

    /// `2024-05-01T10:00:00Z`, with or without fractions of a second, in UTC or with an offset.
    static func time(_ text: String) -> Double? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date.timeIntervalSince1970 }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)?.timeIntervalSince1970
    }
}

public struct GPXError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

private final class GPXParserDelegate: NSObject, XMLParserDelegate {
    let accuracy: Double
    var tracks: [[Fix]] = []
    var skipped = 0
    var problem: String?

    private var inSegment = false
    private var point: (latitude: Double, longitude: Double)?
    private var elevation: Double?
    private var time: Double?
    private var text = ""

    init(accuracy: Double) {
        self.accuracy = accuracy
    }

    /// GPX may be written with a namespace prefix (`gpx:trkpt`); only the local name matters.
    private func local(_ name: String) -> Substring {
        name.split(separator: ":").last ?? Substring(name)
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        text = ""
        switch local(elementName) {
        case "trkseg":
            inSegment = true
            tracks.append([])
        case "trkpt" where inSegment:
            guard let latitude = attributes["lat"].flatMap(Double.init), let longitude = attributes["lon"].flatMap(Double.init),
                (-90...90).contains(latitude), (-180...180).contains(longitude)
            else {
                problem = "a track point at line \(parser.lineNumber) lacks a valid lat and lon"
                parser.abortParsing()
                return
            }
            point = (latitude, longitude)
            elevation = nil
            time = nil
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch local(elementName) {
        case "ele" where point != nil:
            elevation = Double(value)
        case "time" where point != nil:
            time = GPXReader.time(value)
        case "trkpt":
            if let point, let time {
                tracks[tracks.count - 1].append(
                    Fix(latitude: point.latitude, longitude: point.longitude, altitude: elevation, accuracy: accuracy, time: time))
            } else if point != nil {
                skipped += 1
            }
            point = nil
        case "trkseg":
            inSegment = false
        default:
            break
        }
        text = ""
    }
}
