import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianSecurity
import Foundation

/// The body of `POST /route`, in either of the two forms docs/geotag.md describes:
///
/// - the app's: the body is the base64 of the encrypted route, whatever its
///   Content-Type; the lookup id, if any, in the query (`?lookup_id=…`, covered by the signature);
/// - JSON: `{"route": "<base64>", "lookup_id": "<64 hex digits>"}`, `lookup_id` optional.
///
/// Base64 is read leniently, as phones write it: line breaks (Android's `Base64.DEFAULT`) and missing
/// padding are fine, and so is the URL-safe alphabet.
///
/// Either form is read here, member by member in the geotag API's words: a decoder cannot tell one from the other, so
/// the body is taken as any JSON (which never fails to read) and its form told by looking.
public struct RouteUpload: RoutedInput, Equatable {
    /// Nothing here is refused by the decoder (the body is any JSON); the API's own checks word every mistake.
    public static var decoding: RequestDecoding { .fastAPI }

    /// The encrypted route, decoded.
    public var blob: Data
    /// Lowercase.
    public var lookupID: String?

    public init(blob: Data, lookupID: String? = nil) {
        self.blob = blob
        self.lookupID = lookupID
    }

    /// The largest encrypted route, decoded: about 15 000 fixes, a day's recording at one fix every five seconds.
    public static let maximumSize = 1024 * 1024

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        let (encoded, bodyLookupID) = try Self.fields(of: request.body(JSONValue.self))
        let queryLookupID = try request.singleQuery("lookup_id")
        if let bodyLookupID, let queryLookupID, bodyLookupID != queryLookupID {
            throw RPCError.badRequest(
                "lookup_id is given twice, in the query and in the body, with different values", reason: "conflicting_lookup_id")
        }
        let lookupID = try (bodyLookupID ?? queryLookupID).map(LookupID.validated)
        self.init(blob: try Self.decode(encoded), lookupID: lookupID)
    }

    /// The JSON form.
    public func encode(to encoder: any Encoder) throws {
        var body: [String: JSONValue] = ["route": .string(blob.base64EncodedString())]
        body["lookup_id"] = lookupID.map { .string($0) }
        try HTTPInput(body: .object(body)).encode(to: encoder)
    }

    static let missingRoute = RPCError.badRequest(
        #"The body must be the encrypted route in base64, or {"route": "<base64>", "lookup_id": "<hex>"}"#, reason: "missing_route")

    /// The base64 text and the body's lookup id, if any.
    private static func fields(of body: JSONValue) throws -> (String, String?) {
        switch body {
        case .string(let text) where text.drop(while: \.isWhitespace).first == "{":
            guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
                throw RPCError.badRequest("The request body starts with '{' but is not valid JSON", reason: "malformed_body")
            }
            return try fields(of: value)
        case .string(let text):
            guard text.contains(where: { !$0.isWhitespace }) else { throw missingRoute }
            return (text, nil)
        case .object(let fields):
            guard case .string(let route)? = fields["route"] else {
                throw RPCError.badRequest(#"The JSON body needs "route": the encrypted route in base64"#, reason: "missing_route")
            }
            switch fields["lookup_id"] {
            case nil, .null?: return (route, nil)
            case .string(let lookupID)?: return (route, lookupID)
            default: throw RPCError.badRequest("lookup_id must be a string of 64 hex digits", reason: "invalid_lookup_id")
            }
        default:
            throw missingRoute
        }
    }

    static func decode(_ text: String, maximumSize: Int = maximumSize) throws -> Data {
        var text = text
        var digits: [UInt8] = text.withUTF8 { bytes in
            var digits: [UInt8] = []
            digits.reserveCapacity(bytes.count)
            for byte in bytes {
                switch byte {
                case 0x20, 0x09, 0x0d, 0x0a: continue  // space, tab, CR, LF
                case 0x2d: digits.append(0x2b)  // URL-safe "-" is "+"
                case 0x5f: digits.append(0x2f)  // URL-safe "_" is "/"
                default: digits.append(byte)
                }
            }
            return digits
        }
        while digits.last == 0x3d { digits.removeLast() }  // "="
        // Without padding, the decoded size is exactly three quarters of the digits: a route that is too large
        // is refused before it is decoded.
        let size = digits.count * 3 / 4
        guard size <= maximumSize else { throw tooLarge(size, maximumSize: maximumSize) }
        guard digits.count % 4 != 1 else { throw notBase64 }
        digits += [UInt8](repeating: 0x3d, count: (4 - digits.count % 4) % 4)
        guard let blob = Data(base64Encoded: Data(digits)) else { throw notBase64 }
        guard !blob.isEmpty else { throw missingRoute }
        return blob
    }

    static let notBase64 = RPCError.badRequest("The route is not valid base64", reason: "invalid_base64")

    static func tooLarge(_ size: Int, maximumSize: Int) -> RPCError {
        RPCError(
            .payloadTooLarge, reason: "route_too_large",
            message: "The encrypted route has \(size) bytes; at most \(maximumSize) are accepted")
    }
}

/// The id a phone may send with a route, so that the desktop tool finds it from the QR photo alone:
/// hex(SHA-256("custodian-route-lookup" ‖ nonce bytes)), see ``RouteNonce/lookupID``.
public enum LookupID {
    public static func validated(_ text: String) throws -> String {
        guard let id = normalized(text) else {
            throw RPCError.badRequest(
                #"lookup_id must be 64 hex digits: hex(SHA-256("custodian-route-lookup" ‖ nonce))"#, reason: "invalid_lookup_id")
        }
        return id
    }

    public static func normalized(_ text: String) -> String? {
        guard text.utf8.count == 64, Hex.decode(text) != nil else { return nil }
        return text.lowercased()
    }
}

/// Route ids: 128 random bits, URL-safe base64 (22 characters), so that nobody finds a route by guessing.
public enum RouteID {
    public static func generate() -> String {
        SecretToken.generate(byteCount: 16)
    }

    public static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == 22
            && text.utf8.allSatisfy {
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
            }
    }
}

/// `GET` and `DELETE /route/{route_id}`: an id that cannot be one is a route that does not exist.
public struct RouteByID: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var routeID: String

    public init(routeID: String) {
        self.routeID = routeID
    }

    public init(from decoder: any Decoder) throws {
        routeID = try RequestReader(decoder).path("route_id")
        guard RouteID.isWellFormed(routeID) else { throw RPCError.noRoute }
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(path: ["route_id": routeID]).encode(to: encoder)
    }
}

/// `GET /route/lookup/{lookup_id}`.
public struct RouteLookup: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    /// Lowercase.
    public var lookupID: String

    public init(lookupID: String) {
        self.lookupID = lookupID
    }

    public init(from decoder: any Decoder) throws {
        lookupID = try LookupID.validated(RequestReader(decoder).path("lookup_id"))
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(path: ["lookup_id": lookupID]).encode(to: encoder)
    }
}

extension RPCError {
    /// A route that is not stored, or an id that cannot be one.
    public static let noRoute = RPCError.notFound("No such route", reason: "route_not_found")
}

/// `POST /route`: the route's id and when it was stored (`creation_time`: Unix seconds, as the seed's "Store Route"
/// answer has it).
public struct StoredRoute: RoutedJSON, Equatable {
    public var route_id: String
    public var creation_time: Int64

    public init(route_id: String, creation_time: Int64) {
        self.route_id = route_id
        self.creation_time = creation_time
    }
}

/// A route fetched by its id or lookup id.
public struct FetchedRoute: RoutedJSON, Equatable {
    public var route_id: String
    public var creation_time: Int64
    /// The encrypted route, standard base64.
    public var route: String

    public init(route_id: String, creation_time: Int64, route: String) {
        self.route_id = route_id
        self.creation_time = creation_time
        self.route = route
    }
}
