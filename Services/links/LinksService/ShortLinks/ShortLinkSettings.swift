import CustodianContracts
import CustodianRPC
import CustodianRuntime

/// Deployment settings of the short-link resolver.
public struct ShortLinkSettings: Sendable {
    /// Where the gateway is reached from outside, without a trailing slash; links are `<base>/l/<code>`.
    public var publicBaseURL: String
    public var androidStoreURL: String
    public var iosStoreURL: String

    public static let publicBaseURLKey = "CUSTODIAN_PUBLIC_BASE_URL"
    public static let androidStoreURLKey = "CUSTODIAN_SHORT_LINK_ANDROID_STORE_URL"
    public static let iosStoreURLKey = "CUSTODIAN_SHORT_LINK_IOS_STORE_URL"

    public static let defaultPublicBaseURL = "https://127.0.0.1:8443"
    /// The WarmteWachter app of the Twomes project, whose activation links these replace.
    public static let warmteWachterAndroid = "https://play.google.com/store/apps/details?id=nl.windesheim.energietransitie.warmtewachter"
    public static let warmteWachterIOS = "https://apps.apple.com/app/id1563201993"

    public init(
        publicBaseURL: String = Self.defaultPublicBaseURL, androidStoreURL: String = Self.warmteWachterAndroid,
        iosStoreURL: String = Self.warmteWachterIOS
    ) throws {
        var base = publicBaseURL
        while base.hasSuffix("/") { base.removeLast() }
        do {
            try ShortLinkInput.checkURL(base, name: Self.publicBaseURLKey, webOnly: true)
            try ShortLinkInput.checkURL(androidStoreURL, name: Self.androidStoreURLKey, webOnly: true)
            try ShortLinkInput.checkURL(iosStoreURL, name: Self.iosStoreURLKey, webOnly: true)
        } catch let error as RPCError {
            throw ConfigurationError(message: error.message)
        }
        self.publicBaseURL = base
        self.androidStoreURL = androidStoreURL
        self.iosStoreURL = iosStoreURL
    }

    public init(configuration: Configuration) throws {
        try self.init(
            publicBaseURL: configuration.string(Self.publicBaseURLKey, default: Self.defaultPublicBaseURL),
            androidStoreURL: configuration.string(Self.androidStoreURLKey, default: Self.warmteWachterAndroid),
            iosStoreURL: configuration.string(Self.iosStoreURLKey, default: Self.warmteWachterIOS))
    }

    func url(code: String) -> String { "\(publicBaseURL)/l/\(code)" }
}
