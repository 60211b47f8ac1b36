import CustodianHTTP
import CustodianJSON
import CustodianRPC

/// The links service's methods: those other services call (activation links for new accounts in `devices`, QR
/// codes and label sheets for `devices`' device labels and `vault`'s module login codes), and those the gateway routes.
public enum LinksMethods {
    /// A link that activates `token` in the app, from a named template.
    public static let activationMint = RPCMethod<MintActivationLinkInput, ActivationLink>("links.activation.mint", retry: .safe)
    /// A QR code as PNG or SVG.
    public static let qrRender = RPCMethod<QRRenderInput, RawHTTPReply>("links.qr.render", retry: .safe)
    /// A printable HTML page of QR labels.
    public static let labelsSheet = RPCMethod<LabelSheetInput, RawHTTPReply>("links.labels.sheet", retry: .safe)
    /// A short link (`/l/{code}`) that opens an app, or its store page for people without it.
    public static let shortCreate = RPCMethod<ShortLinkInput, ShortLink>("links.short.create")

    // The routes of docs/links.md, typed (docs/rpc.md, "Typed routed methods").
    /// Raw: a PNG or SVG image.
    public static let qrHttp = RoutedMethod<QRQuery, RawHTTPReply>("links.qr.http", retry: .safe)
    public static let shortHttpCreate = RoutedMethod<AdminShortLinkRequest, ShortLink>("links.short.http.create")
    public static let shortList = RoutedMethod<ShortLinksQuery, ShortLinkPage>("links.short.list", retry: .safe)
    /// Raw: a redirect, or an HTML page for a desktop browser.
    public static let shortResolve = RoutedMethod<ShortLinkVisit, RawHTTPReply>("links.short.resolve", retry: .safe)
    /// Idempotent: a second revocation finds nothing and says so.
    public static let shortRevoke = RoutedMethod<ShortLinkRevocation, ErasureReceipt>("links.short.revoke", retry: .safe)
}

/// How much of a QR symbol may be damaged and still read: about 7 %, 15 %, 25 % and 30 %.
public enum QRErrorCorrection: String, Sendable, Codable, CaseIterable {
    case L, M, Q, H
}

public struct MintActivationLinkInput: Codable, Sendable {
    /// What the token activates: `account`.
    public var kind: String
    public var token: String
    /// The template's name; `twomes-short-link` (this platform's own short link) when absent.
    public var template: String?
    /// How long the token lasts: a short link made for it expires with it.
    public var lifetimeSeconds: Int?

    public init(kind: String, token: String, template: String? = nil, lifetimeSeconds: Int? = nil) {
        self.kind = kind
        self.token = token
        self.template = template
        self.lifetimeSeconds = lifetimeSeconds
    }
}

public struct ActivationLink: Codable, Sendable {
    public var url: String
    /// The short link's code when the link is this platform's own (`/l/{code}`), so that it can be revoked when its
    /// account is erased; nil for a template's link (Firebase), which holds nothing of ours.
    public var code: String?

    public init(url: String, code: String? = nil) {
        self.url = url
        self.code = code
    }
}

/// The input of `links.qr.render`: what to encode and how the image should look. Public so that other
/// services (device labels in `devices`, login QR codes in `vault`) can call the method with it.
public struct QRRenderInput: Codable, Sendable, Equatable {
    public enum Format: String, Codable, Sendable, CaseIterable {
        case png, svg
    }

    /// Encoded as its UTF-8 bytes, in 8-bit mode: a scanner gives back exactly this text.
    public var payload: String
    public var format: Format
    public var errorCorrection: QRErrorCorrection
    /// Pixels per module.
    public var moduleSize: Int
    /// Light modules around the symbol.
    public var margin: Int

    public static let moduleSizes = 1...64
    public static let margins = 0...16
    public static let defaultModuleSize = 8
    /// The quiet zone ISO/IEC 18004 asks for.
    public static let defaultMargin = 4

    public init(
        payload: String, format: Format, errorCorrection: QRErrorCorrection = .M,
        moduleSize: Int = Self.defaultModuleSize, margin: Int = Self.defaultMargin
    ) {
        self.payload = payload
        self.format = format
        self.errorCorrection = errorCorrection
        self.moduleSize = moduleSize
        self.margin = margin
    }

    enum CodingKeys: String, CodingKey { case payload, format, errorCorrection, moduleSize, margin }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        payload = try container.decode(String.self, forKey: .payload)
        // Spelled out, so that a wrong value gets a message that says what is allowed.
        let formatName = try container.decode(String.self, forKey: .format)
        guard let format = Format(rawValue: formatName) else {
            throw DecodingError.dataCorruptedError(
                forKey: .format, in: container, debugDescription: "must be \"png\" or \"svg\", not \"\(formatName)\"")
        }
        self.format = format
        let levelName = try container.decodeIfPresent(String.self, forKey: .errorCorrection) ?? QRErrorCorrection.M.rawValue
        guard let level = QRErrorCorrection(rawValue: levelName) else {
            throw DecodingError.dataCorruptedError(
                forKey: .errorCorrection, in: container, debugDescription: "must be \"L\", \"M\", \"Q\" or \"H\", not \"\(levelName)\"")
        }
        errorCorrection = level
        moduleSize = try container.decodeIfPresent(Int.self, forKey: .moduleSize) ?? Self.defaultModuleSize
        margin = try container.decodeIfPresent(Int.self, forKey: .margin) ?? Self.defaultMargin
    }
}

/// A printable sheet of QR labels (docs/admin.md, "Device labels": a label on the back of each device): an HTML page of A4
/// pages, twelve 60 × 66 mm labels each, every label a QR code in SVG with its caption below.
public struct LabelSheetInput: Codable, Sendable {
    public struct Label: Codable, Sendable {
        public var payload: String
        public var title: String
        public var subtitle: String?

        public init(payload: String, title: String, subtitle: String? = nil) {
            self.payload = payload
            self.title = title
            self.subtitle = subtitle
        }
    }

    public var labels: [Label]
    public var errorCorrection: QRErrorCorrection

    public init(labels: [Label], errorCorrection: QRErrorCorrection = .M) {
        self.labels = labels
        self.errorCorrection = errorCorrection
    }

    public static let maximumLabels = 240
}

/// The input of `links.short.create`, for what other services hand to people (an activation link on a letter, a
/// device's set-up page).
public struct ShortLinkInput: Codable, Sendable, Equatable {
    /// Where a phone is sent: a universal link (`https://…`) or an app scheme (`warmtewachter://…`).
    public var appURL: String
    /// Shown on the page desktop browsers get.
    public var title: String?
    /// Seconds until the link answers 410 Gone; without it the link does not expire.
    public var ttlSeconds: Int?
    /// Store pages for people without the app; the deployment's defaults (the WarmteWachter app) when absent.
    public var androidStoreURL: String?
    public var iosStoreURL: String?

    public init(appURL: String, title: String? = nil, ttlSeconds: Int? = nil, androidStoreURL: String? = nil, iosStoreURL: String? = nil) {
        self.appURL = appURL
        self.title = title
        self.ttlSeconds = ttlSeconds
        self.androidStoreURL = androidStoreURL
        self.iosStoreURL = iosStoreURL
    }

    public static let maximumURLLength = 2048
    public static let maximumTitleLength = 200
    /// A year and a day.
    public static let ttlRange = 1...31_622_400
}

/// What `links.short.create` answers: the code, and the link to hand out.
public struct ShortLink: RoutedJSON, Equatable {
    public var code: String
    public var url: String

    public init(code: String, url: String) {
        self.code = code
        self.url = url
    }
}
