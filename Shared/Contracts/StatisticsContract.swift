import CustodianRPC

/// The statistics methods `auth` calls for the tracing app: whether a language is served (handshake), and
/// forgetting a device's submissions when its registration is deleted.
public enum StatisticsMethods {
    public static let languagesSupported = RPCMethod<LanguageQuery, LanguageSupport>("statistics.languages.supported")
    public static let deviceForget = RPCMethod<ForgetDeviceInput, ForgottenSubmissions>("statistics.device.forget")
}

/// `statistics.languages.supported`: whether apps can be served in `language` (an alpha2 code).
public struct LanguageQuery: Codable, Sendable {
    public var language: String

    public init(language: String) {
        self.language = language
    }
}

public struct LanguageSupport: Codable, Sendable {
    public var supported: Bool

    public init(supported: Bool) {
        self.supported = supported
    }
}

/// `statistics.device.forget`: the device whose submissions go.
public struct ForgetDeviceInput: Codable, Sendable {
    public var deviceId: String

    public init(deviceId: String) {
        self.deviceId = deviceId
    }
}

public struct ForgottenSubmissions: Codable, Sendable {
    public var deleted: Int

    public init(deleted: Int) {
        self.deleted = deleted
    }
}
