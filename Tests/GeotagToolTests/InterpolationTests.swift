import CustodianGeotag
import Testing
@testable import GeotagTool

@Suite("Route interpolation")
struct InterpolationTests {
    // Two tracks: three fixes 10 s apart, then (after a 20-minute pause) two fixes 600 s apart.
    static let tracks = Tracks([
        [
            Fix(latitude: 52.0, longitude: 5.0, altitude: 10, accuracy: 5, time: 1000),
            Fix(latitude: 52.001, longitude: 5.002, altitude: 20, accuracy: 5, time: 1010),
            Fix(latitude: 52.002, longitude: 5.002, altitude: nil, accuracy: 5, time: 1020),
        ],
        [
            Fix(latitude: 53.0, longitude: 6.0, altitude: 0, accuracy: 5, time: 2220),
            Fix(latitude: 53.0, longitude: 6.1, altitude: -4, accuracy: 5, time: 2820),
        ],
    ])
    static let route = RouteInterpolator(tracks: tracks, maxGap: 300)

    static func position(_ time: Double, _ route: RouteInterpolator = route) -> GeoPosition? {
        if case .position(let position) = route.position(at: time) { return position }
        return nil
    }

    @Test func linearInTimeBetweenTheTwoFixesAround() throws {
        let quarter = try #require(Self.position(1002.5))
        #expect(abs(quarter.latitude - 52.00025) < 1e-12)
        #expect(abs(quarter.longitude - 5.0005) < 1e-12)
        #expect(abs(quarter.altitude! - 12.5) < 1e-9)
        let middle = try #require(Self.position(1005))
        #expect(abs(middle.latitude - 52.0005) < 1e-12 && abs(middle.longitude - 5.001) < 1e-12 && middle.altitude == 15)
    }

    @Test func atAFixItIsThatFix() {
        #expect(Self.position(1000) == GeoPosition(latitude: 52.0, longitude: 5.0, altitude: 10))
        #expect(Self.position(1010) == GeoPosition(latitude: 52.001, longitude: 5.002, altitude: 20))
        #expect(Self.position(1020) == GeoPosition(latitude: 52.002, longitude: 5.002, altitude: nil))
        #expect(Self.position(2820) == GeoPosition(latitude: 53.0, longitude: 6.1, altitude: -4))
    }

    @Test func noAltitudeUnlessBothEndsHaveOne() throws {
        let position = try #require(Self.position(1015))
        #expect(position.altitude == nil)
        #expect(abs(position.latitude - 52.0015) < 1e-12)
    }

    @Test func outsideTheRouteNothing() {
        #expect(Self.route.position(at: 999.9) == .beforeRoute(start: 1000))
        #expect(Self.route.position(at: 2820.1) == .afterRoute(end: 2820))
        #expect(Self.route.start == 1000 && Self.route.end == 2820)
    }

    @Test func withExtrapolationPhotosJustOutsideTheRouteGetItsFirstOrLastFix() {
        let route = RouteInterpolator(tracks: Self.tracks, maxGap: 300, maxExtrapolation: 60)
        #expect(route.maxExtrapolation == 60)
        #expect(Self.position(999, route) == GeoPosition(latitude: 52.0, longitude: 5.0, altitude: 10))
        #expect(Self.position(940, route) == GeoPosition(latitude: 52.0, longitude: 5.0, altitude: 10))
        #expect(route.position(at: 939.9) == .beforeRoute(start: 1000))
        #expect(Self.position(2880, route) == GeoPosition(latitude: 53.0, longitude: 6.1, altitude: -4))
        #expect(route.position(at: 2880.1) == .afterRoute(end: 2820))
        // Only the ends: a gap between fixes is no nearer to being bridged.
        #expect(route.position(at: 1040) == .gap(from: 1020, to: 2220, betweenTracks: true))
        // Without it (the default), nothing outside the route, as before.
        #expect(RouteInterpolator(tracks: Self.tracks, maxGap: 300).position(at: 999) == .beforeRoute(start: 1000))
    }

    @Test func gapsLongerThanTheLimitAreNotBridged() {
        // The pause between the tracks (1200 s) and the 600 s between the second track's fixes.
        #expect(Self.route.position(at: 1500) == .gap(from: 1020, to: 2220, betweenTracks: true))
        #expect(Self.route.position(at: 2500) == .gap(from: 2220, to: 2820, betweenTracks: false))
        // The fixes at either end of a gap still place photos taken at their very times.
        #expect(Self.position(2220) == GeoPosition(latitude: 53.0, longitude: 6.0, altitude: 0))
        // A larger limit bridges both: the pause like any other gap.
        let lenient = RouteInterpolator(tracks: Self.tracks, maxGap: 1200)
        let inPause = Self.position(1620, lenient)
        #expect(inPause.map { abs($0.latitude - 52.501) < 1e-9 && abs($0.longitude - 5.501) < 1e-9 } == true)
        #expect(Self.position(2520, lenient).map { abs($0.longitude - 6.05) < 1e-12 && $0.altitude == -2 } == true)
    }

    @Test func theLongitudeTakesTheShortWayAcrossTheAntimeridian() throws {
        let route = RouteInterpolator(
            tracks: Tracks([
                [
                    Fix(latitude: -16, longitude: 179.9, altitude: nil, accuracy: 5, time: 0),
                    Fix(latitude: -16, longitude: -179.9, altitude: nil, accuracy: 5, time: 10),
                ]
            ]), maxGap: 300)
        #expect(abs(try #require(Self.position(2.5, route)).longitude - 179.95) < 1e-9)
        #expect(abs(try #require(Self.position(7.5, route)).longitude + 179.95) < 1e-9)
    }

    @Test func fixesOutOfOrderAreSortedAndAnEmptyRoutePlacesNothing() throws {
        let route = RouteInterpolator(
            tracks: Tracks([
                [
                    Fix(latitude: 1, longitude: 1, altitude: nil, accuracy: 5, time: 20),
                    Fix(latitude: 0, longitude: 0, altitude: nil, accuracy: 5, time: 0),
                ]
            ]), maxGap: 300)
        #expect(abs(try #require(Self.position(5, route)).latitude - 0.25) < 1e-12)
        if case .position = RouteInterpolator(tracks: Tracks([]), maxGap: 300).position(at: 0) {
            Issue.record("an empty route placed a photo")
        }
    }
}
