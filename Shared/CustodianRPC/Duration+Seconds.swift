extension Duration {
    /// The duration in seconds, with its fraction: for clocks and APIs that count in `Double` seconds.
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
