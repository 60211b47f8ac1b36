/// What the resolver needs to know of a `User-Agent`: whether the app can be opened on that device.
enum UserAgent {
    /// Android phones and tablets, iPhones, iPads and iPods. (iPadOS Safari may present itself as a Mac;
    /// it then gets the page, whose link opens the app just the same.)
    static func isMobile(_ userAgent: String?) -> Bool {
        guard let userAgent = userAgent?.lowercased() else { return false }
        return ["android", "iphone", "ipad", "ipod"].contains { userAgent.contains($0) }
    }
}
