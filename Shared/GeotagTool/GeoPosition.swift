/// A point on the route: WGS 84 degrees, and metres above sea level when the route recorded an altitude.
public struct GeoPosition: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?

    public init(latitude: Double, longitude: Double, altitude: Double?) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }
}
