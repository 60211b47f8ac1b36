import CustodianGeotag

/// What `custodian geotag` does to each photo: the GPS tags it writes, or why it leaves the photo alone.
public struct PlannedPhoto: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        case tag(GPSTags)
        case skip(String)
    }

    public var name: String
    /// The capture time on the route's clock, when the photo has one.
    public var correctedTime: Double?
    public var action: Action

    public init(name: String, correctedTime: Double?, action: Action) {
        self.name = name
        self.correctedTime = correctedTime
        self.action = action
    }
}

public enum GeotagPlan {
    public static func plan(_ scans: [PhotoScan], correction: ClockCorrection, route: RouteInterpolator) -> [PlannedPhoto] {
        // Without --extrapolate the reason reads as it always has.
        let extrapolation = route.maxExtrapolation > 0 ? "; --extrapolate is \(Int(route.maxExtrapolation)) s" : ""
        return scans.map { scan in
            if let problem = scan.problem { return PlannedPhoto(name: scan.name, correctedTime: nil, action: .skip(problem)) }
            guard let capture = scan.captureTime else {
                return PlannedPhoto(name: scan.name, correctedTime: nil, action: .skip("no capture time (Exif DateTimeOriginal or DateTime)"))
            }
            let time = correction.correct(capture)
            let action: PlannedPhoto.Action =
                switch route.position(at: time) {
                case .position(let position): .tag(GPSTags(position: position, time: time))
                case .beforeRoute(let start): .skip("before the route, which starts at \(Self.time(start))\(extrapolation)")
                case .afterRoute(let end): .skip("after the route, which ends at \(Self.time(end))\(extrapolation)")
                case .gap(let from, let to, let betweenTracks):
                    .skip(
                        "in a \(Int((to - from).rounded())) s gap \(betweenTracks ? "between tracks" : "between fixes") "
                            + "(\(Self.time(from)) to \(Self.time(to)); --max-gap is \(Int(route.maxGap)) s)")
                }
            return PlannedPhoto(name: scan.name, correctedTime: time, action: action)
        }
    }

    /// `2025-11-24T16:00:05Z`, to the second.
    public static func time(_ seconds: Double) -> String {
        CivilTime(seconds: Int64(seconds.rounded(.down))).iso8601
    }
}
